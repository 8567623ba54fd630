/**
 * For the monitor's unit tests only: what the monitor says in monitor.log (its stderr), caught
 * per test instead of printed.
 * @internal
 */
import { afterEach, beforeEach, vi } from "vitest";

/** The lines written to stderr during each test of the file (emptied before each). */
export function captureMonitorLog(): string[] {
  const lines: string[] = [];
  beforeEach(() => {
    lines.length = 0;
    vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => {
      lines.push(String(s));
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return lines;
}
