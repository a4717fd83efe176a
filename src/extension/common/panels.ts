/**
 * The webview panels' common part: createPanel, fillPanel (also used by the serializers that
 * restore a panel after a window reload). The search panel is searchPanel.ts, the graph panel
 * graphPanel.ts. All data goes to the webview as typed messages (src/present/webviewMessages.ts).
 */
import * as vscode from 'vscode';
import { nonce, webviewShell } from './webviewHtml';

export interface PanelActions {
  open(id: string): Thenable<unknown>;
  /** Edit from a search result (absent: the panel offers no edit). */
  edit?(id: string): Thenable<unknown>;
  delete(id: string): Thenable<unknown>;
  promote(id: string): Thenable<unknown>;
}

/** What a panel is: its view type, title, webview script (dist/webview/<script>.js), static markup and own stylesheet. */
export interface PanelSpec {
  viewType: string;
  title: string;
  script: string;
  body: string;
  extraStyle?: string;
}

function webviewRoots(context: vscode.ExtensionContext): { dist: vscode.Uri; media: vscode.Uri } {
  return { dist: vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview'), media: vscode.Uri.joinPath(context.extensionUri, 'media') };
}

export function createPanel(context: vscode.ExtensionContext, spec: PanelSpec): vscode.WebviewPanel {
  const { dist, media } = webviewRoots(context);
  const panel = vscode.window.createWebviewPanel(spec.viewType, spec.title, vscode.ViewColumn.Active, {
    enableScripts: true,
    retainContextWhenHidden: false,
    localResourceRoots: [dist, media],
  });
  fillPanel(context, panel, spec);
  return panel;
}

/**
 * Gives a panel its options, icon and HTML: a new one (createPanel) or one VS Code restores
 * after a window reload (a WebviewPanelSerializer hands it over empty).
 */
export function fillPanel(context: vscode.ExtensionContext, panel: vscode.WebviewPanel, spec: PanelSpec): void {
  const { title, script, body, extraStyle } = spec;
  const { dist, media } = webviewRoots(context);
  panel.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
  panel.iconPath = vscode.Uri.joinPath(media, 'memory.svg');
  const w = panel.webview;
  const n = nonce();
  // A panel's own stylesheet (media/<name>.css), loaded like webview.css: local, with the nonce.
  const extra = extraStyle
    ? `<link rel="stylesheet" href="${w.asWebviewUri(vscode.Uri.joinPath(media, `${extraStyle}.css`)).toString()}" nonce="${n}">\n`
    : '';
  w.html = webviewShell({
    title,
    cspSource: w.cspSource,
    nonce: n,
    scriptUri: w.asWebviewUri(vscode.Uri.joinPath(dist, `${script}.js`)).toString(),
    styleUri: w.asWebviewUri(vscode.Uri.joinPath(media, 'webview.css')).toString(),
    codiconUri: w.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
    body: extra + body,
  });
}
