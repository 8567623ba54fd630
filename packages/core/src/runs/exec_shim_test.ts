import { describe, expect, it } from "vitest";
import { CLOSE_FDS_PERL, closingExec } from "./exec_shim.ts";

describe("closingExec", () => {
  it.each([
    {
      name: "through perl: the file first, then the command's own argv with its argv[0]",
      perl: "/usr/bin/perl",
      file: "/bin/sleep",
      argv: ["sleep", "5"],
      want: { file: "/usr/bin/perl", args: ["-e", CLOSE_FDS_PERL, "/bin/sleep", "sleep", "5"] },
    },
    {
      name: "an argument that looks like a perl flag stays the command's",
      perl: "/usr/bin/perl",
      file: "/usr/bin/env",
      argv: ["env", "-e", "--", "x"],
      want: { file: "/usr/bin/perl", args: ["-e", CLOSE_FDS_PERL, "/usr/bin/env", "env", "-e", "--", "x"] },
    },
    {
      name: "no perl: the command directly",
      perl: null,
      file: "/bin/sleep",
      argv: ["sleep", "5"],
      want: { file: "/bin/sleep", args: ["5"] },
    },
  ])("$name", ({ perl, file, argv, want }) => {
    expect(closingExec(perl, file, argv)).toEqual(want);
  });

  it("an empty argv is a programming error", () => {
    expect(() => closingExec("/usr/bin/perl", "/bin/true", [])).toThrow(RangeError);
  });

  it("the step keeps stdio, closes the rest, and execs (pinned: what the docs promise)", () => {
    expect(CLOSE_FDS_PERL).toContain('opendir($d, "/proc/self/fd") || opendir($d, "/dev/fd")');
    expect(CLOSE_FDS_PERL).toContain("$_ > 2");
    expect(CLOSE_FDS_PERL).toContain("exec { $f } @ARGV");
    expect(CLOSE_FDS_PERL).toContain("exit($! == 2 ? 127 : 126)");
  });
});
