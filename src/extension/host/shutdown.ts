/**
 * Whether the extension is being deactivated (the window closes or reloads). Views stop asking
 * VS Code to refresh then: the engine's last state changes would start refreshes that VS Code
 * cancels as the extension host ends, and logs as "Unable to refresh tree view … Canceled".
 */
let deactivating = false;

export function markDeactivating(): void {
  deactivating = true;
}

export function isDeactivating(): boolean {
  return deactivating;
}
