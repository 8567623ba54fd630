/**
 * What a run's process starts with: only its own stdio. A monitor holds the pseudo-terminal
 * masters of its tty runs (opened by node-pty's `forkpty()`, not close-on-exec), and whatever
 * the CLI that started it inherited; Node never closes inherited descriptors in a child. So a
 * run's argv goes through this shim: a perl one-liner (perl-base is in every Debian base, and
 * the monitor already runs a perl helper for the output cap) that closes every descriptor above
 * 2 and then execs the command in the same process: same pid, same process group, same start
 * time, so the run's identity and signals are unchanged (decision 0100).
 *
 * Pure: the argv is data; the host finds perl (host/supervise/exec.ts).
 */

/**
 * The shim's program. Descriptors are listed from /proc/self/fd (Linux) or /dev/fd (macOS, the
 * BSDs), else 3..1023 are tried; each is closed through a perl handle made on it (`&=`: fdopen,
 * no new descriptor), with no module loaded (POSIX alone costs ~10 ms). The first argument is
 * the file to run, the rest the command's own argv (its argv[0] kept). An exec that fails after
 * all (the file went away) says so and ends 127 (not found) or 126, as a shell would.
 */
export const CLOSE_FDS_PERL = [
  "my $f = shift; my ($d, @n);",
  'if (opendir($d, "/proc/self/fd") || opendir($d, "/dev/fd")) { my $k = fileno($d); @n = grep { /^\\d+$/ && $_ > 2 && $_ != $k } readdir($d); closedir($d) } else { @n = (3 .. 1023) }',
  'for my $n (@n) { my $h; close($h) if open($h, "+<&=", $n) || open($h, "<&=", $n) || open($h, ">&=", $n) }',
  "{ exec { $f } @ARGV }",
  'print STDERR "ariel: $ARGV[0]: $!\\n"; exit($! == 2 ? 127 : 126);',
].join(" ");

/** A program and its arguments, as `spawn(file, args)` takes them. */
export interface ExecArgv {
  file: string;
  args: string[];
}

/**
 * How to start `argv` (already resolved to `file`, the path execvp would run) so that it holds
 * no descriptor but its stdio: through `perl` when there is one, else directly.
 *
 * @example
 * ```ts
 * closingExec("/usr/bin/perl", "/bin/sleep", ["sleep", "5"]);
 * // { file: "/usr/bin/perl", args: ["-e", CLOSE_FDS_PERL, "/bin/sleep", "sleep", "5"] }
 * closingExec(null, "/bin/sleep", ["sleep", "5"]); // { file: "/bin/sleep", args: ["5"] }
 * ```
 */
export function closingExec(perl: string | null, file: string, argv: readonly string[]): ExecArgv {
  if (argv.length === 0) throw new RangeError("closingExec: empty argv");
  if (perl === null) return { file, args: argv.slice(1) };
  return { file: perl, args: ["-e", CLOSE_FDS_PERL, file, ...argv] };
}
