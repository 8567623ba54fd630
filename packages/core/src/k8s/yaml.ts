/**
 * A small, deterministic YAML emitter for the manifests ariel prints (`--dry-run -o yaml`):
 * block mappings and sequences in insertion order, plain scalars only where YAML 1.1 and 1.2
 * read them back as the same string, JSON-style double quotes otherwise, and `|-` literal blocks
 * for multi-line strings (the scripts). Every output parses back to the input with any YAML
 * parser; a test holds it to that with the `yaml` package.
 *
 * @example
 * ```ts
 * toYaml({ a: 1, b: ["x", true] }); // "a: 1\nb:\n  - x\n  - true\n"
 * ```
 */

type Json = string | number | boolean | null | readonly Json[] | { readonly [k: string]: Json | undefined };

const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./-]*$/;
/** Words some YAML version reads as a boolean or null. */
const RESERVED =
  /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;

function scalar(s: string): string {
  return PLAIN.test(s) && !RESERVED.test(s) ? s : JSON.stringify(s);
}

function literalOk(s: string): boolean {
  // Every line printable, none with trailing blanks, the first not indented: a literal block
  // then reads back exactly.
  if (!s.includes("\n") || s.endsWith("\n") || /^[ \t]/.test(s)) return false;
  return s.split("\n").every((line) => !/[\s]$/.test(line) && !/[^\x20-\x7e]/.test(line));
}

function isCollection(v: Json): v is readonly Json[] | { readonly [k: string]: Json | undefined } {
  if (typeof v !== "object" || v === null) return false;
  return Array.isArray(v) ? v.length > 0 : Object.values(v).some((x) => x !== undefined);
}

/** The lines of a non-empty mapping or sequence whose own lines start at `indent`. */
function block(v: readonly Json[] | { readonly [k: string]: Json | undefined }, indent: string): string[] {
  const lines: string[] = [];
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    for (const item of v as readonly Json[]) {
      if (!isCollection(item)) {
        lines.push(`${indent}- ${inline(item, inner)}`);
        continue;
      }
      const sub = block(item, inner);
      sub[0] = `${indent}- ${(sub[0] ?? "").slice(inner.length)}`;
      lines.push(...sub);
    }
    return lines;
  }
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (isCollection(x)) lines.push(`${indent}${scalar(k)}:`, ...block(x, inner));
    else lines.push(`${indent}${scalar(k)}: ${inline(x, inner)}`);
  }
  return lines;
}

function inline(v: Json, indent: string): string {
  if (v === null) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v === "string") {
    if (literalOk(v))
      return `|-\n${v
        .split("\n")
        .map((l) => (l === "" ? "" : indent + l))
        .join("\n")}`;
    return scalar(v);
  }
  return Array.isArray(v) ? "[]" : "{}";
}

/** One YAML document (no `---`), ending with a newline. */
export function toYaml(data: unknown): string {
  const value = data as Json;
  return `${isCollection(value) ? block(value, "").join("\n") : inline(value, "  ")}\n`;
}

/** Several documents, each started by `---`. */
export function toYamlDocuments(values: readonly unknown[]): string {
  return values.map((v) => `---\n${toYaml(v)}`).join("");
}
