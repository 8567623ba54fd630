// The ArielError a promise rejects with: in packages/core/src/_fixture.ts (test-only), so the
// packages' own tests use it without importing from test/; re-exported for the e2e tests.
export { arielErrorOf } from "../../packages/core/src/_fixture.ts";
