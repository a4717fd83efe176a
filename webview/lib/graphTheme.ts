/**
 * Theme colours for a canvas renderer: cytoscape paints on a <canvas>, where CSS variables do
 * not apply, so the --vscode-* values are read at run time (and again when the theme changes:
 * VS Code rewrites the body's class and style then).
 */
export interface GraphTheme {
  background: string;
  foreground: string;
  muted: string;
  edge: string;
  focus: string;
  selection: string;
  /** The workbench font: labels on the canvas read like the rest of VS Code. */
  fontFamily: string;
  palette: string[];
}

/** The same order as the swatch classes tc0…tc6 of media/webview.css, so legend and canvas agree. */
const PALETTE_VARS = [
  '--vscode-charts-blue',
  '--vscode-charts-orange',
  '--vscode-charts-green',
  '--vscode-charts-purple',
  '--vscode-charts-red',
  '--vscode-charts-yellow',
  '--vscode-charts-foreground',
];
const FALLBACK_PALETTE = ['#3794ff', '#d18616', '#89d185', '#b180d7', '#f14c4c', '#cca700', '#cccccc'];

export function readTheme(el: Element = document.body): GraphTheme {
  const css = getComputedStyle(el);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: v('--vscode-editor-background', '#1e1e1e'),
    foreground: v('--vscode-editor-foreground', v('--vscode-foreground', '#cccccc')),
    muted: v('--vscode-descriptionForeground', '#9d9d9d'),
    // High-contrast themes set contrastBorder: edges then use it, like every other border there.
    edge: v('--vscode-contrastBorder', v('--vscode-editorWidget-border', v('--vscode-panel-border', '#6b6b6b'))),
    focus: v('--vscode-focusBorder', '#007fd4'),
    selection: v('--vscode-editor-selectionBackground', '#264f78'),
    fontFamily: v('--vscode-font-family', 'sans-serif'),
    palette: PALETTE_VARS.map((name, i) => v(name, FALLBACK_PALETTE[i]!)),
  };
}

/** Calls `fn` when VS Code switches theme (it changes the body's class list). */
export function onThemeChange(fn: () => void): void {
  new MutationObserver(fn).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
