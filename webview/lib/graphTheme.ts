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
  /** Opacity of what a selection fades: higher in high contrast, where a faint node vanishes on black. */
  fadedOpacity: number;
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
    // Otherwise the description colour: widget borders are too pale for lines on a light background.
    edge: v('--vscode-contrastBorder', v('--vscode-descriptionForeground', v('--vscode-editorWidget-border', '#6b6b6b'))),
    focus: v('--vscode-focusBorder', '#007fd4'),
    selection: v('--vscode-editor-selectionBackground', '#264f78'),
    fontFamily: v('--vscode-font-family', 'sans-serif'),
    palette: PALETTE_VARS.map((name, i) => opaque(v(name, FALLBACK_PALETTE[i]!))),
    fadedOpacity: /\bvscode-high-contrast\b/.test(el.className) ? 0.45 : 0.15,
  };
}

/**
 * A colour without its alpha. Some themes give a chart colour transparency (Dark Modern's orange
 * is #EA5C0055); the canvas draws node colours solid, and media/webview.css drops the alpha of the
 * legend swatches the same way (`rgb(from … r g b / 1)`), so both show the same colour.
 */
export function opaque(colour: string): string {
  const probe = document.createElement('span');
  probe.style.color = colour;
  document.body.appendChild(probe);
  const computed = getComputedStyle(probe).color;
  probe.remove();
  const m = /^rgba?\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)/.exec(computed);
  return m ? `rgb(${m[1]}, ${m[2]}, ${m[3]})` : colour;
}

/** Calls `fn` when VS Code switches theme (it changes the body's class list). */
export function onThemeChange(fn: () => void): void {
  new MutationObserver(fn).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
