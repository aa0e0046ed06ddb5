import type { EmbedClient, Product } from './api';
import type { Controls } from './controls';
import type { Lang, Strings } from './i18n';
import type { Shell } from './shell';
import type { DialogState } from './state';

/** What every part of the dialog shares: the one state object, the shell, the controls and the words. */
export interface Ctx {
  t: Strings;
  lang: Lang;
  client: EmbedClient;
  state: DialogState;
  shell: Shell;
  controls: Controls;
  /** The product (loaded before any part but the shell runs). */
  product(): Product;
  /** Minor units of the product's currency, in the buyer's language. */
  money(minor: number): string;
  /** Minor-unit digits of the product's currency. */
  digits(): number;
  /** Runs an action with its button busy; a failure is explained beside the button. */
  busy(button: HTMLButtonElement, action: () => Promise<void>): Promise<void>;
  /** Empties the alert and every field's error line. */
  clearErrors(): void;
  /** Words for an error answer; per-field messages go next to their inputs. */
  explain(err: unknown): string;
  /** Where the buyer's sign-in token is kept. */
  tokenKey: string;
}
