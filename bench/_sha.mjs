// sha256 hex of a string (the workspace hash's digest), for benchmarks that write a registry.
import { createHash } from "node:crypto";

export async function sha256Hex(text) {
  return createHash("sha256").update(text).digest("hex");
}
