/**
 * The fleet API's wire rules that do not need a server: the HTTP status of an error record and
 * the Server-Sent Events frame.
 *
 * @example
 * ```ts
 * httpStatusOf(66); // 404
 * sseFrame({ id: "7", event: "output", data: '{"seq":7}' }); // "id: 7\nevent: output\ndata: {\"seq\":7}\n\n"
 * ```
 */

/**
 * An ArielError's exit status as an HTTP status: 64/65→400, 66→404, 3→409, 77→403, 75 and 69
 * (unavailable)→503, else 500.
 */
export function httpStatusOf(exit: number): number {
  switch (exit) {
    case 64:
    case 65:
      return 400;
    case 66:
      return 404;
    case 3:
      return 409;
    case 77:
      return 403;
    case 69:
    case 75:
      return 503;
    default:
      return 500;
  }
}

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** One SSE message; `data` may hold newlines (each line becomes its own `data:` field). */
export function sseFrame(m: SseMessage): string {
  let s = "";
  if (m.id !== undefined) s += `id: ${m.id.replace(/[\r\n\0]/g, "")}\n`;
  if (m.event !== undefined) s += `event: ${m.event.replace(/[\r\n]/g, "")}\n`;
  if (m.retry !== undefined) s += `retry: ${m.retry}\n`;
  for (const line of m.data.split(/\r\n|\r|\n/)) s += `data: ${line}\n`;
  return `${s}\n`;
}
