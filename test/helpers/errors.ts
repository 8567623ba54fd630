import { ArielError } from "../../packages/core/src/errors.ts";

/** The ArielError a promise rejects with (fails the test if it resolves or throws otherwise). */
export async function arielErrorOf(p: Promise<unknown>): Promise<ArielError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ArielError) return e;
    throw e;
  }
  throw new Error("expected an ArielError, got success");
}
