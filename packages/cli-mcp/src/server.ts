/**
 * The MCP server: `tools/list` publishes {@link offeredTools}; `tools/call` validates the input
 * against the tool's JSON Schema, runs the tool's CLI call ({@link runCli}), and answers with its
 * records (structured) or, for a refusal or failure, a tool error carrying ariel's error record:
 * code, message, hint (the next step) and exit status.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { CallResult } from "./call.ts";
import { type JsonSchema, offeredTools, type ToolDef } from "./tools.ts";

/** What every tool answers with (`structuredContent`), success or tool error. */
export const OUTPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    records: {
      type: "array",
      items: { type: "object" },
      description: "ariel's NDJSON records, as the CLI prints them",
    },
    truncated: { type: "boolean", description: "the output went past the cap and was cut" },
    exit: { type: "integer", description: "the exit status the CLI call ended with (docs/contract.md)" },
    error: { type: "object", description: "ariel's error record: code, message, hint, exit" },
    messages: { type: "array", items: { type: "string" }, description: "warnings and notes (stderr)" },
  },
  required: ["records", "truncated", "exit"],
};

/** The most text a tool answer carries; the structured records are capped by the call itself. */
export const TEXT_CAP = 64 << 10;

export interface ServeOptions {
  root: string;
  version: string;
  allowLand: boolean;
  env: NodeJS.ProcessEnv;
}

/** Where the server talks and logs: stdio, unless a test gives it another connection. */
export interface ServeIo {
  transport: Transport;
  /** Its end is the end of input: the calls in flight are answered, then the server stops. */
  input: { once(event: "end", listener: () => void): unknown };
  /** Each line a CLI call prints on stderr (the server's own stderr). */
  log: (line: string) => void;
}

const stdio = (): ServeIo => ({
  transport: new StdioServerTransport(),
  input: process.stdin,
  log: (line) => process.stderr.write(`${line}\n`),
});

/** The `tools/list` entries. */
export function toolList(allowLand: boolean): Tool[] {
  return offeredTools(allowLand).map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool["inputSchema"],
    outputSchema: OUTPUT_SCHEMA as Tool["outputSchema"],
    annotations: { readOnlyHint: !t.mutates, destructiveHint: false, openWorldHint: false },
  }));
}

/** Serve over stdio (or `io`) until the client closes the connection or the input ends. */
export async function serve(opts: ServeOptions, io: ServeIo = stdio()): Promise<void> {
  const server = new Server(
    { name: "ariel-mcp", version: opts.version },
    {
      capabilities: { tools: {} },
      // Ajv only when the server validates something with it (elicitation): not at start-up.
      jsonSchemaValidator: { getValidator: (schema) => lazyAjv().getValidator(schema) },
      instructions:
        "ariel: isolated git worktrees (tasks) and supervised background runs for parallel agents. Refusals never lose work: read the error's hint for the next step.",
    },
  );
  const tools = new Map(offeredTools(opts.allowLand).map((t) => [t.name, t]));
  const validate = inputValidator();
  const inflight = new Inflight();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList(opts.allowLand) }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => inflight.track(callTool(req, extra)));
  const callTool = async (
    req: {
      params: {
        name: string;
        arguments?: Record<string, unknown>;
        _meta?: { progressToken?: string | number };
      };
    },
    extra: { signal: AbortSignal; sendNotification: Notify },
  ): Promise<CallToolResult> => {
    const tool = tools.get(req.params.name);
    if (!tool) return usageError(unknownTool(req.params.name, opts.allowLand));
    const input = req.params.arguments ?? {};
    const checked = validate(tool, input);
    if (!checked.valid) {
      return toolError({
        code: "ERR_INVALID_INPUT",
        message: `invalid arguments for ${tool.name}: ${checked.errorMessage ?? "schema mismatch"}`,
        hint: "check the arguments against the tool's input schema (tools/list)",
        exit: 65,
      });
    }
    const progress = progressOf(req.params._meta?.progressToken, extra.sendNotification);
    const started = Date.now();
    const beat = setInterval(
      () => progress(`${tool.name}: ${Math.round((Date.now() - started) / 1000)}s`),
      HEARTBEAT_MS,
    );
    try {
      // The call machinery (child processes) loads with the first call, not at start-up.
      const { runCli } = await import("./call.ts");
      const result = await runCli(tool.argv(input), {
        root: opts.root,
        env: opts.env,
        boundMs: tool.boundMs(input),
        signal: extra.signal,
        onStderr: io.log,
        onRecord: (rec) => progress(describe(rec)),
      });
      return answer(tool, result);
    } finally {
      clearInterval(beat);
    }
  };
  const closed = new Promise<void>((resolve) => {
    io.transport.onclose = () => resolve();
    // End of input: answer what was asked (a script may pipe its requests in), then stop.
    io.input.once("end", () => void inflight.idle().then(resolve));
  });
  await server.connect(io.transport);
  await closed;
  await server.close().catch(() => {});
}

/** The tool calls under way, so that the end of input waits for their answers. */
class Inflight {
  #count = 0;
  #waiters: (() => void)[] = [];

  track<T>(p: Promise<T>): Promise<T> {
    this.#count += 1;
    return p.finally(() => {
      this.#count -= 1;
      if (this.#count === 0) for (const w of this.#waiters.splice(0)) setImmediate(w);
    });
  }

  /** Resolves once no call is under way (and the last answer has been sent). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#count === 0) setImmediate(resolve);
      else this.#waiters.push(resolve);
    });
  }
}

/**
 * Checks a tool's input against its schema. Ajv is made, and each schema compiled, at the first
 * call that needs it: `initialize` and `tools/list` (a client's start) never pay for them.
 */
let ajvInstance: AjvJsonSchemaValidator | undefined;
const lazyAjv = (): AjvJsonSchemaValidator => {
  ajvInstance ??= new AjvJsonSchemaValidator();
  return ajvInstance;
};

function inputValidator(): (
  tool: ToolDef,
  input: unknown,
) => { valid: boolean; errorMessage?: string | undefined } {
  const compiled = new Map<
    string,
    (input: unknown) => { valid: boolean; errorMessage?: string | undefined }
  >();
  return (tool, input) => {
    let check = compiled.get(tool.name);
    if (!check) {
      check = lazyAjv().getValidator(tool.inputSchema);
      compiled.set(tool.name, check);
    }
    return check(input);
  };
}

/** How often a running tool says it is still at work (progress notifications). */
export const HEARTBEAT_MS = 2_000;

type Notify = (n: { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;

/** A progress reporter for one call: a no-op unless the client asked for progress (a token). */
function progressOf(token: string | number | undefined, send: Notify): (message: string) => void {
  let progress = 0;
  return (message) => {
    if (token === undefined) return;
    progress += 1;
    void send({
      method: "notifications/progress",
      params: { progressToken: token, progress, message },
    }).catch(() => {});
  };
}

function unknownTool(name: string, allowLand: boolean): string {
  if (name === "land_task" && !allowLand)
    return "land_task is offered only when ariel-mcp runs with --allow-land";
  return `no tool ${JSON.stringify(name)}`;
}

function usageError(message: string): CallToolResult {
  return toolError({ code: "ERR_USAGE", message, hint: "list the tools with tools/list", exit: 64 });
}

/** A CLI call's result as a tool answer. */
export function answer(tool: ToolDef, r: CallResult): CallToolResult {
  const base = {
    records: r.records,
    truncated: r.truncated,
    exit: r.exit,
    ...(r.messages.length > 0 ? { messages: r.messages.slice(-20) } : {}),
  };
  if (r.stopped) {
    const timeout = r.stopped === "timeout";
    return toolError(
      {
        code: timeout ? "ERR_TOOL_TIMEOUT" : "ERR_CANCELLED",
        message: timeout ? `${tool.name} ran past its bound and was stopped` : `${tool.name} was cancelled`,
        hint: timeout ? "the work may go on: check with task_status or list_runs" : "nothing more was done",
        exit: 75,
      },
      base,
    );
  }
  if (r.error !== undefined || (r.exit !== 0 && tool.exitIsAnswer !== true)) {
    const error = r.error ?? {
      code: "ERR_FAILED",
      message: r.messages.at(-1) ?? `${tool.name} failed`,
      hint: "see the records for what failed",
      exit: r.exit,
    };
    return toolError(error, base);
  }
  const text = boundedText(r.records, r.truncated);
  return { content: [{ type: "text", text }], structuredContent: base };
}

function toolError(error: Record<string, unknown>, base?: Record<string, unknown>): CallToolResult {
  const lines = [`${String(error.code)}: ${String(error.message)}`];
  if (error.hint) lines.push(`hint: ${String(error.hint)}`);
  lines.push(`exit: ${String(error.exit)}`);
  return {
    isError: true,
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: { records: [], truncated: false, exit: Number(error.exit ?? 1), ...base, error },
  };
}

/** The records as NDJSON text, at most {@link TEXT_CAP} characters, saying what it left out. */
export function boundedText(records: Record<string, unknown>[], truncated: boolean): string {
  let text = "";
  let shown = 0;
  for (const r of records) {
    const line = `${JSON.stringify(r)}\n`;
    if (text.length + line.length > TEXT_CAP) break;
    text += line;
    shown += 1;
  }
  if (shown < records.length) text += `… ${records.length - shown} more records in structuredContent\n`;
  if (truncated) text += "… output cut at the cap; narrow the request (from, tail, task)\n";
  return text === "" ? "(no records)\n" : text;
}

function describe(rec: Record<string, unknown>): string {
  const what = [rec.type, rec.event ?? rec.action, rec.source ?? rec.task].filter(
    (x) => typeof x === "string",
  );
  return what.join(" ");
}
