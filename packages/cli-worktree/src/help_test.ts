import { expect, it } from "vitest";
import { helpReference } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

it("every help page of ariel-worktree is as docs/help/ariel-worktree.md shows it (npm run schema writes it)", async () => {
  const { rendered, stored } = await helpReference(command);
  expect(rendered).toBe(stored);
});
