/**
 * The UI's state: where the selection and the focus are, the filter, and the panel over the list
 * (help, a question, a prompt, the new-run form, a pager). Pure data, changed by the app.
 */
import type { FormState } from "../model/form.ts";

export type Mode =
  | { kind: "list" }
  | { kind: "help" }
  | { kind: "filter"; text: string }
  | { kind: "confirm"; title: string; lines: string[]; yes: () => Promise<void> }
  | { kind: "input"; title: string; text: string; submit: (text: string) => Promise<void> }
  | { kind: "form"; title: string; form: FormState; complete: Partial<Record<string, string[]>> }
  | { kind: "pager"; title: string; lines: string[]; scroll: number }
  | { kind: "busy"; title: string };

export interface UiState {
  focus: "list" | "preview";
  /** The selected item's key. */
  selected: string | null;
  /** The first list row shown. */
  scroll: number;
  /** Lines the preview is scrolled back from its end (0: it follows). */
  previewBack: number;
  filter: string;
  mode: Mode;
  message: { text: string; ok: boolean } | null;
}

export function initialState(): UiState {
  return {
    focus: "list",
    selected: null,
    scroll: 0,
    previewBack: 0,
    filter: "",
    mode: { kind: "list" },
    message: null,
  };
}

/** The scroll that keeps row `index` in a window of `height` rows (moved as little as it must). */
export function scrollTo(scroll: number, index: number, height: number): number {
  if (height <= 0) return 0;
  if (index < scroll) return index;
  if (index >= scroll + height) return index - height + 1;
  return scroll;
}
