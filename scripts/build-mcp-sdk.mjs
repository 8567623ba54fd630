// How scripts/build.mjs bundles @modelcontextprotocol/sdk (ariel-mcp) so that a client's first
// exchange costs little: the SDK's modules are written for a long-lived server and do most of
// their work when they load. Two esbuild plugins; every bundle gets them, only cli-mcp has files
// they match. docs/decisions/0097-mcp-sdk-startup.md.
//
// - sdkSchemasTreeShaken: the SDK's types.js builds ~170 zod schemas at load, each a chain of
//   calls esbuild cannot know to be pure, so all of them are kept and built although the server
//   uses fewer than half. Each top-level `const X = …;` becomes `const X = /* @__PURE__ */ (() =>
//   (…))();`: the same value when used, dropped from the bundle when nothing refers to it.
// - ajvOnFirstUse: the SDK's server/index.js imports its Ajv validator statically, which loads
//   Ajv (a fifth of the bundle) at start-up; ariel-mcp passes its own validator (made on the first
//   tool call) and never has the SDK construct one. The module becomes a class whose constructor
//   require()s the real one, so Ajv loads when a validator is first made.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";

const SDK_TYPES = /@modelcontextprotocol\/sdk\/dist\/esm\/types\.js$/;
const SDK_AJV = /@modelcontextprotocol\/sdk\/dist\/esm\/validation\/ajv-provider\.js$/;
/**
 * zod compiles a parser (new Function) for each object schema the first time it parses with it:
 * worth it for a schema used thousands of times, not for the few messages of a session. Set
 * before types.js builds its schemas (each reads the setting when it is made).
 */
const ZOD_JITLESS = 'import { config as arielZodConfig } from "zod/v4/core";\narielZodConfig({ jitless: true });\n';
/** Fewer wrapped declarations than this means the SDK's types.js changed shape: fail the build. */
const MIN_SCHEMAS = 120;

/**
 * `src` (the SDK's types.js) with each top-level `const` initializer wrapped in a pure IIFE.
 * A declaration starts at column 0 and runs until the next line that starts at column 0 with
 * anything but a closing bracket (the formatter's layout of the published file).
 */
export function pureDeclarations(src) {
  const out = [];
  let decl = null;
  let wrapped = 0;
  const flush = () => {
    if (decl === null) return;
    const text = decl.join("\n");
    const m = /^((?:export )?const \w+ = )([\s\S]*);\s*$/.exec(text);
    if (m) wrapped += 1;
    out.push(m ? `${m[1]}/* @__PURE__ */ (() => (${m[2]}))();` : text);
    decl = null;
  };
  for (const line of src.split("\n")) {
    if (/^(export )?const \w+ = /.test(line)) {
      flush();
      decl = [line];
    } else if (decl !== null && /^[^\s})\]]/.test(line)) {
      flush();
      out.push(line);
    } else if (decl !== null) decl.push(line);
    else out.push(line);
  }
  flush();
  return { code: out.join("\n"), wrapped };
}

export const sdkSchemasTreeShaken = {
  name: "sdk-schemas-tree-shaken",
  setup(b) {
    b.onLoad({ filter: SDK_TYPES }, (args) => {
      const { code, wrapped } = pureDeclarations(readFileSync(args.path, "utf8"));
      if (wrapped < MIN_SCHEMAS) {
        throw new Error(`${args.path}: only ${wrapped} declarations wrapped (expected ${MIN_SCHEMAS}+)`);
      }
      return { contents: ZOD_JITLESS + code, loader: "js" };
    });
  },
};

export const ajvOnFirstUse = {
  name: "ajv-on-first-use",
  setup(b) {
    b.onResolve({ filter: /ajv-provider\.js$|^@modelcontextprotocol\/sdk\/validation\/ajv$/ }, async (args) => {
      if (args.pluginData === "ajv-on-first-use") return undefined; // the stub's own require
      const real = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "ajv-on-first-use",
      });
      if (real.errors.length > 0 || !SDK_AJV.test(real.path)) return undefined;
      return { path: real.path, namespace: "ajv-on-first-use" };
    });
    b.onLoad({ filter: /.*/, namespace: "ajv-on-first-use" }, (args) => ({
      loader: "js",
      resolveDir: dirname(args.path),
      pluginData: "ajv-on-first-use",
      contents: `export class AjvJsonSchemaValidator {
  constructor(ajv) {
    const real = require(${JSON.stringify(args.path)});
    return new real.AjvJsonSchemaValidator(ajv);
  }
}`,
    }));
  },
};
