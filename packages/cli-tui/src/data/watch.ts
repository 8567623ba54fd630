/**
 * Directory watches that say "something here changed" (inotify on Linux, FSEvents/kqueue on
 * macOS through fs.watch): what wakes the UI instead of a polling loop. A directory that does not
 * exist yet is waited for through its nearest existing ancestor, then watched itself.
 */
import { existsSync, type FSWatcher, watch } from "node:fs";
import { dirname } from "node:path";

export class DirWatch {
  #watcher: FSWatcher | null = null;
  #closed = false;
  readonly path: string;
  readonly #onChange: (file: string | null) => void;

  constructor(path: string, onChange: (file: string | null) => void) {
    this.path = path;
    this.#onChange = onChange;
    this.#open();
  }

  #open(): void {
    if (this.#closed) return;
    const at = nearestExisting(this.path);
    const self = at === this.path;
    try {
      this.#watcher = watch(at, { persistent: true }, (_event, file) => {
        if (self) return this.#onChange(file === null ? null : String(file));
        // A level between appeared (or the ancestor went): watch from the nearest one again, one
        // level at a time if they come one at a time; the owner reads again (what came meanwhile).
        if (nearestExisting(this.path) !== at) {
          this.#watcher?.close();
          this.#open();
          this.#onChange(null);
        }
      });
      this.#watcher.on("error", () => {
        // Removed (a run directory rm'd): the owner decides whether to watch again.
        this.#watcher?.close();
        this.#watcher = null;
        this.#onChange(null);
      });
    } catch {
      this.#watcher = null;
    }
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = null;
  }
}

/** `path`, or its nearest ancestor that exists. */
function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}
