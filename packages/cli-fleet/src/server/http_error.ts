import type { ArielError } from "@ariel/core";

/** An error record with an HTTP status that its exit status does not give (401, 405, 421). */
export class HttpRefusal extends Error {
  readonly status: number;
  readonly error: ArielError;

  constructor(status: number, error: ArielError) {
    super(error.message);
    this.status = status;
    this.error = error;
  }
}
