/**
 * @module host/reconcile — crash recovery's I/O: gather the facts (facts.ts), take the lease and
 * apply the pure plan of core/reconcile (apply.ts), and `reconcileWorkspace`, the command's entry
 * (reconcile.ts). The mirror of core/reconcile/.
 */
export * from "./reconcile.ts";
