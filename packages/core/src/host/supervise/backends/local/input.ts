import { ArielError } from "../../../../errors.ts";
import { connectAndRequest } from "../../client.ts";

/** Forward bytes to an interactive local run's stdin through the monitor (empty = end of input). */
export async function sendLocalInput(
  root: string,
  hash: string,
  runId: string,
  data: Uint8Array,
): Promise<void> {
  const { sock, reply } = await connectAndRequest(root, hash, {
    v: 1,
    op: "input",
    runId,
    data: Buffer.from(data).toString("base64"),
  });
  sock.destroy();
  if (!reply.ok) throw new ArielError("ERR_REFUSED", `cannot send input: ${reply.message}`);
}
