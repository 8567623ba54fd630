// SSE readers for bench/fleet.mjs, in their own process (so that they do not share a core's time
// with the writer, and their CPU is measured apart from the server's).
//   node bench/_sse_clients.mjs URL CLIENTS
// Prints "ready" once every client is connected; on "start" (stdin) counts `event: output`
// messages from zero; on "stop" prints {"delivered":N,"cpuMs":N} and exits; on "wait" the same
// once every stream has ended, with "secs": from the first output line to the last stream's end.
import { createInterface } from "node:readline";

const [url, n] = process.argv.slice(2);
const stop = new AbortController();
const needle = Buffer.from("event: output\n");
let delivered = 0;
let connected = 0;
let cpu0 = process.cpuUsage();
let firstAt = 0;

const readers = Array.from({ length: Number(n) }, async () => {
  const res = await fetch(url, { signal: stop.signal });
  if (++connected === Number(n)) process.stdout.write("ready\n");
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const buf = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      for (let i = buf.indexOf(needle); i >= 0; i = buf.indexOf(needle, i + needle.length)) delivered++;
      if (firstAt === 0 && delivered > 0) firstAt = Date.now();
    }
  } catch {}
});

for await (const line of createInterface({ input: process.stdin })) {
  if (line === "start") {
    delivered = 0;
    cpu0 = process.cpuUsage();
  } else if (line === "wait") {
    await Promise.allSettled(readers);
    const c = process.cpuUsage(cpu0);
    const secs = (Date.now() - firstAt) / 1000;
    process.stdout.write(`${JSON.stringify({ delivered, cpuMs: (c.user + c.system) / 1000, secs })}\n`);
    process.exit(0);
  } else if (line === "stop") {
    const c = process.cpuUsage(cpu0);
    process.stdout.write(`${JSON.stringify({ delivered, cpuMs: (c.user + c.system) / 1000 })}\n`);
    stop.abort();
    await Promise.allSettled(readers);
    process.exit(0);
  }
}
