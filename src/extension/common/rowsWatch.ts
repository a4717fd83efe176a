/**
 * Refreshes a tree view only when what its rows are made of changed. A refresh makes VS Code
 * forget the elements shown until the view has asked for them again, and an inline action
 * clicked in that gap (Keep Their Version, Accept, Restore) reaches its command with no row —
 * the command then has to ask which one. Views that refresh on broad engine events (every
 * memory.changed) check first: the rows are fetched, compared with those last shown, and the
 * view refreshes only when they differ. getChildren reads the rows through read() (the newest),
 * which records what was shown.
 */
import { isDeactivating } from '../host/shutdown';

export class RowsWatch<T> {
  private shownKey: string | undefined;
  /** How many checks have ended (tests wait on it). */
  checks = 0;

  constructor(
    private readonly fetch: () => Promise<T>,
    private readonly refresh: () => void,
  ) {}

  /** The rows, fetched for getChildren and recorded as shown (after an error: nothing known, so the next check refreshes). */
  async read(): Promise<T> {
    try {
      const rows = await this.fetch();
      this.shownKey = JSON.stringify(rows);
      return rows;
    } catch (e) {
      this.shownKey = undefined;
      throw e;
    }
  }

  /** Refreshes the view when its rows would differ from those shown (or cannot be read). Nothing while the window closes (shutdown.ts). */
  async check(): Promise<void> {
    if (isDeactivating()) return;
    try {
      if (JSON.stringify(await this.fetch()) !== this.shownKey) this.refresh();
    } catch {
      this.refresh(); // getChildren tries again and shows the error
    } finally {
      this.checks++;
    }
  }
}
