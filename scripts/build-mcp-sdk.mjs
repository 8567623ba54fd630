// How scripts/build.mjs bundles @modelcontextprotocol/sdk (ariel-mcp) so that a client's first
// exchange costs little: the SDK's modules are written for a long-lived server and do most of
// their work when they load. Every bundle gets these esbuild plugins; only cli-mcp has files they
// match. docs/decisions/0097-mcp-sdk-startup.md.
//
// - sdkSchemasOnFirstUse: the SDK's types.js builds ~170 zod schemas when it loads; answering
//   `initialize` and `tools/list` needs about 50. The bundle gets types.js as a CommonJS module
//   whose exports are getters: each schema is built when first read (the same expression, in the
//   same module, so the same value), and the ones never read are never built. zod is handed to it
//   as the few names it uses (esbuild keeps only those), set jitless: zod otherwise compiles a
//   parser (new Function) for each object schema the first time it parses with it, worth it for a
//   schema used thousands of times, not for the few messages of a session.
// - ajvOnFirstUse: the SDK's server/index.js imports its Ajv validator statically, which loads
//   Ajv (a third of the bundle) at start-up; ariel-mcp passes its own validator (made on the first
//   tool call) and never has the SDK construct one. The module becomes a class whose constructor
//   require()s the real one from a vendor chunk beside the bundle, dist/mcp-ajv.cjs (AJV_CHUNK,
//   written by build.mjs), so Ajv is neither parsed nor run until a validator is first made.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";

const SDK_TYPES = /@modelcontextprotocol\/sdk\/dist\/esm\/types\.js$/;
const SDK_AJV = /@modelcontextprotocol\/sdk\/dist\/esm\/validation\/ajv-provider\.js$/;
const ZOD_IMPORT = "import * as z from 'zod/v4';";
/** Fewer lazy declarations than this means the SDK's types.js changed shape: fail the build. */
const MIN_DECLARATIONS = 150;

/**
 * The top-level statements of `src` as the published file lays them out: a statement starts at
 * column 0 with anything but a closing bracket and runs until the next one.
 */
function statements(src) {
  const out = [];
  for (const line of src.split("\n")) {
    if (out.length === 0 || /^[^\s})\]]/.test(line)) out.push([line]);
    else out.at(-1).push(line);
  }
  return out.map((lines) => lines.join("\n"));
}

/**
 * The SDK's types.js (`src`) as CommonJS with lazy exports: each top-level `const X = …;` becomes
 * a getter that evaluates `…` once (on the module's own object `$`, where references to X inside
 * the module read it, and on `exports` when X is exported), and the other exports (ErrorCode,
 * McpError, …) are plain values. zod comes from `require(zodModule).default`.
 */
export function lazyTypes(src, zodModule) {
  const parts = statements(src);
  const names = parts.map((t) => /^(?:export )?const (\w+) = /.exec(t)?.[1]).filter((n) => n !== undefined);
  // A name as an identifier (not a property `.X`, but a spread `...X`).
  const ref = new RegExp(`(^|\\.\\.\\.|[^\\w$.])(${names.join("|")})(?![\\w$])`, "gm");
  const lazy = (t) => t.replace(ref, "$1$$.$2");
  const exported = [];
  const body = parts.map((t) => {
    if (t === ZOD_IMPORT) return `const z = require(${JSON.stringify(zodModule)}).default;`;
    const decl = /^(export )?const (\w+) = ([\s\S]*);\s*$/.exec(t);
    if (decl) return `lazy(${JSON.stringify(decl[2])}, ${decl[1] !== undefined}, () => (${lazy(decl[3])}));`;
    const other = /^export (?:var|function|class) (\w+)/.exec(t);
    if (other) exported.push(other[1]);
    return lazy(t.replace(/^export /, ""));
  });
  if (!parts.includes(ZOD_IMPORT)) throw new Error(`no ${ZOD_IMPORT}`);
  const code = `"use strict";
const $ = {};
function lazy(name, exported, make) {
  let made = false;
  let value;
  const get = () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
  Object.defineProperty($, name, { get });
  if (exported) Object.defineProperty(exports, name, { enumerable: true, get });
}
${body.join("\n")}
${exported.map((n) => `Object.defineProperty(exports, ${JSON.stringify(n)}, { enumerable: true, value: ${n} });`).join("\n")}
`;
  return {
    code,
    lazy: names.length,
    zodNames: [...new Set([...src.matchAll(/\bz\.(\w+)/g)].map((m) => m[1]))],
  };
}

/** The vendor chunk that holds the SDK's Ajv validator: its file name, module, and where from. */
export const AJV_CHUNK = {
  name: "mcp-ajv",
  module: "@modelcontextprotocol/sdk/validation/ajv",
  from: "packages/cli-mcp",
};

/** `path` resolved as esbuild would, into `namespace` when it is the file `wanted` matches. */
function redirect(b, namespace, wanted) {
  return async (args) => {
    if (args.pluginData === namespace) return undefined; // the replacement's own import of it
    const real = await b.resolve(args.path, {
      kind: args.kind,
      importer: args.importer,
      resolveDir: args.resolveDir,
      pluginData: namespace,
    });
    if (real.errors.length > 0 || !wanted.test(real.path)) return undefined;
    return { path: real.path, namespace };
  };
}

export const sdkSchemasOnFirstUse = {
  name: "sdk-schemas-on-first-use",
  setup(b) {
    // Its own namespace: the SDK's package is "type": "module", which would make the CommonJS text
    // ESM again.
    b.onResolve({ filter: /types\.js$/ }, redirect(b, "sdk-types", SDK_TYPES));
    b.onLoad({ filter: /.*/, namespace: "sdk-types" }, (args) => {
      const { code, lazy, zodNames } = lazyTypes(readFileSync(args.path, "utf8"), "sdk-types-zod");
      if (lazy < MIN_DECLARATIONS) {
        throw new Error(`${args.path}: only ${lazy} lazy declarations (expected ${MIN_DECLARATIONS}+)`);
      }
      return {
        contents: code,
        loader: "js",
        resolveDir: dirname(args.path),
        pluginData: { zodNames, resolveDir: dirname(args.path) },
      };
    });
    b.onResolve({ filter: /^sdk-types-zod$/ }, (args) => ({
      path: args.path,
      namespace: "sdk-types-zod",
      pluginData: args.pluginData,
    }));
    b.onLoad({ filter: /.*/, namespace: "sdk-types-zod" }, ({ pluginData: { zodNames, resolveDir } }) => ({
      loader: "js",
      resolveDir,
      // Aliased: `enum` and `null` are reserved words.
      contents: `import { config, ${zodNames.map((n) => `${n} as z_${n}`).join(", ")} } from "zod/v4";
config({ jitless: true });
export default { ${zodNames.map((n) => `${n}: z_${n}`).join(", ")} };
`,
    }));
  },
};

export const ajvOnFirstUse = {
  name: "ajv-on-first-use",
  setup(b) {
    b.onResolve(
      { filter: /ajv-provider\.js$|^@modelcontextprotocol\/sdk\/validation\/ajv$/ },
      redirect(b, "ajv-on-first-use", SDK_AJV),
    );
    const chunk = `./${AJV_CHUNK.name}.cjs`;
    b.onResolve(
      { filter: new RegExp(`^\\./${AJV_CHUNK.name}\\.cjs$`), namespace: "ajv-on-first-use" },
      (args) => ({
        path: args.path,
        external: true,
      }),
    );
    b.onLoad({ filter: /.*/, namespace: "ajv-on-first-use" }, () => ({
      loader: "js",
      contents: `export class AjvJsonSchemaValidator {
  constructor(ajv) {
    const real = require(${JSON.stringify(chunk)});
    return new real.AjvJsonSchemaValidator(ajv);
  }
}
`,
    }));
  },
};
