import { hostname, userInfo } from "node:os";
import type { Ports } from "../../ports.ts";

/** Who owns new tasks: `ARIEL_OWNER`, else `<user>@<host>`. */
export function ownerOf(ports: Ports): string {
  const env = ports.env.ARIEL_OWNER;
  if (env) return env;
  let user = ports.env.USER ?? "unknown";
  try {
    user = userInfo().username;
  } catch {}
  return `${user}@${hostname()}`;
}
