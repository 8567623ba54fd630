import type { ChildProcess } from "node:child_process";
import { nodeChildProcess } from "../builtins.ts";
import { type PunchHole, punchHole } from "./output.ts";

/**
 * fallocate(2)'s number on the 64-bit Linux architectures, by `process.arch` (from the kernel's
 * tables: x86_64 `unistd_64.h`, the generic `asm-generic/unistd.h`, powerpc, s390). Elsewhere the
 * helper is not started and every hole goes to `fallocate(1)`.
 */
const FALLOCATE_NR: Readonly<Record<string, number>> = {
  x64: 285,
  arm64: 47,
  riscv64: 47,
  loong64: 47,
  ppc64: 309,
  s390x: 314,
};

/** How long the helper stays without a request before it is told to exit. */
const DEFAULT_IDLE_MS = 10_000;

/**
 * The helper: perl (Essential on Debian, in every distribution's base perl) calling
 * fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) through `syscall`, one request per
 * NUL-terminated record `OFFSET \t LENGTH \t PATH` on stdin, one reply line each (`ok`, or
 * `error` and why). No modules, so perl-base is enough; it refuses a perl without 64-bit
 * integers (its `syscall` passes numbers as native ints). It ends at the end of its stdin, so it
 * never outlives the monitor. Unlike util-linux `fallocate`, it does not fsync the file.
 */
const SCRIPT = String.raw`
length(pack("j", 0)) == 8 or die "perl without 64-bit integers\n";
my $nr = shift @ARGV;
$| = 1;
$/ = "\0";
while (defined(my $req = <STDIN>)) {
  chomp $req;
  my ($off, $len, $path) = split /\t/, $req, 3;
  my $f;
  if (!open($f, "+<", $path)) { print "error open: $!\n"; next }
  my $r = syscall($nr, fileno($f), 3, $off + 0, $len + 0);
  my $why = "$!";
  close $f;
  print $r == 0 ? "ok\n" : "error fallocate(2): $why\n";
}
`;

/** The helper could not be used (did not start, died, spoke nonsense): not an answer about the file. */
class HelperGone extends Error {}

interface Helper {
  request(path: string, offset: number, length: number): Promise<void>;
  /** Ends its stdin: it exits once it has answered what it was sent. */
  end(): void;
  pending(): number;
}

function startHelper(command: string, nr: number, path: string | undefined): Helper {
  const queue: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let gone: string | null = null;
  let out = "";
  let err = "";
  const fail = (why: string) => {
    gone ??= why;
    for (const p of queue.splice(0)) p.reject(new HelperGone(gone));
  };
  let child: ChildProcess;
  try {
    // Only PATH: nothing from the user's environment (PERL5OPT, PERL5LIB) reaches the helper.
    child = nodeChildProcess().spawn(command, ["-e", SCRIPT, String(nr)], {
      stdio: ["pipe", "pipe", "pipe"],
      env: path === undefined ? {} : { PATH: path },
      shell: false,
    });
  } catch (e) {
    fail(`${command}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return { request: () => Promise.reject(new HelperGone(gone!)), end() {}, pending: () => 0 };
  }
  child.once("error", (e) => fail(`${command}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
  child.once("close", (code, signal) =>
    fail(err.trim().split("\n")[0] || `${command} exited with ${code ?? signal}`),
  );
  child.stdin?.on("error", () => {}); // EPIPE once it died: "close" says why
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    err += s;
  });
  child.stdout?.setEncoding("utf8").on("data", (s: string) => {
    out += s;
    for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      const p = queue.shift();
      if (p === undefined || (line !== "ok" && !line.startsWith("error "))) {
        if (p) queue.unshift(p);
        fail(`${command}: unexpected reply ${JSON.stringify(line.slice(0, 80))}`);
        child.kill("SIGKILL");
        return;
      }
      if (line === "ok") p.resolve();
      else p.reject(new Error(line.slice("error ".length)));
    }
  });
  return {
    request: (file, offset, length) =>
      new Promise<void>((resolve, reject) => {
        if (gone !== null) return reject(new HelperGone(gone));
        queue.push({ resolve, reject });
        child.stdin?.write(`${offset}\t${length}\t${file}\0`);
      }),
    end: () => child.stdin?.end(),
    pending: () => queue.length,
  };
}

export interface HolePuncherOptions {
  /** The perl to run (a name looked up on `path`, or a path); default `perl`. */
  perl?: string;
  /** PATH for finding perl; default the monitor's own. */
  path?: string;
  /** `process.arch` to pick fallocate(2)'s number for; default this process's. */
  arch?: string;
  /** Used when the helper cannot be; default `fallocate(1)` (util-linux). */
  fallback?: PunchHole;
  /** Idle time after which the helper is ended (the next hole starts a new one). */
  idleMs?: number;
  /** Told once when the helper cannot be used and the fallback takes over. */
  log?: (message: string) => void;
}

export interface HolePuncher {
  punch: PunchHole;
  /** Ends the helper (if one runs); a later punch starts a new one. */
  close(): void;
}

/**
 * Punches holes through one long-lived helper process instead of a `fallocate(1)` per hole: a
 * drop then costs the monitor a line on a pipe and the kernel the punch itself, where
 * `fallocate(1)` cost a fork and exec from the monitor and, above all, an fsync of the whole file
 * (util-linux closes every file it wrote with fsync), which writes back everything the child
 * left dirty (decision 0040). Started on the first hole, ended after `idleMs` without one.
 *
 * When the helper cannot be used (no perl, an architecture without a known syscall number, a
 * perl without 64-bit integers, the helper died), `log` is told once and every hole from then on
 * goes to `fallback`: the same result, at the old cost. What the kernel says about a hole (a
 * filesystem that cannot punch, a file gone) is the answer, and is not retried.
 *
 * @example
 * ```ts
 * const puncher = holePuncher({ log: (m) => console.error(m) });
 * await puncher.punch("/tmp/out", 0, 16 * 1024 * 1024); // bytes 0..16 MiB now a hole
 * puncher.close();
 * ```
 */
export function holePuncher(options: HolePuncherOptions = {}): HolePuncher {
  const command = options.perl ?? "perl";
  const arch = options.arch ?? process.arch;
  const fallback = options.fallback ?? punchHole;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const nr = Object.hasOwn(FALLOCATE_NR, arch) ? FALLOCATE_NR[arch] : undefined;
  let broken: string | null = nr === undefined ? `no fallocate(2) number known for ${arch}` : null;
  let said = false;
  let helper: Helper | null = null;
  let idle: ReturnType<typeof setTimeout> | undefined;

  const close = () => {
    clearTimeout(idle);
    helper?.end();
    helper = null;
  };
  const giveUp = (why: string) => {
    broken ??= why;
    close();
  };

  const punch: PunchHole = async (path, offset, length) => {
    if (broken === null) {
      clearTimeout(idle);
      helper ??= startHelper(command, nr!, options.path ?? process.env.PATH);
      const h = helper;
      try {
        await h.request(path, offset, length);
        return;
      } catch (e) {
        if (!(e instanceof HelperGone)) throw e;
        giveUp(e.message);
      } finally {
        if (helper === h && h.pending() === 0) {
          // Replies read in one chunk end several requests before any of these runs: one timer.
          clearTimeout(idle);
          idle = setTimeout(close, idleMs);
          (idle as { unref?: () => void }).unref?.();
        }
      }
    }
    if (!said) {
      said = true;
      options.log?.(`hole punch helper unavailable (${broken}): using fallocate(1)`);
    }
    return fallback(path, offset, length);
  };
  return { punch, close };
}
