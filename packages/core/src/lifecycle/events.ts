/**
 * The lifecycle events a hook can be set for (docs/lifecycle.md), in the order of a task's life.
 * The one list: the config schema, the hook runner and every command that fires an event use it.
 *
 * @example
 * ```ts
 * isHookEvent("post-create"); // true
 * isHookEvent("post-merge");  // false
 * ```
 */
export const HOOK_EVENTS = ["post-create", "pre-remove", "post-restore", "pre-land", "post-land"] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

/** True for a name of {@link HOOK_EVENTS}. */
export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/** Events whose failure refuses the step they come before (exit 3, nothing changed). */
export const GUARD_EVENTS: readonly HookEvent[] = ["pre-remove", "pre-land"];
