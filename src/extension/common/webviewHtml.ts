/**
 * The HTML shell of a webview: a strict Content-Security-Policy with a per-load nonce, only
 * local resources (the bundle, codicons, the stylesheet), theme colours from --vscode-* vars.
 * Memory text never goes into this HTML: the webview script renders it with textContent.
 */
import { randomBytes } from 'node:crypto';

export function nonce(): string {
  return randomBytes(18)
    .toString('base64')
    .replace(/[^a-zA-Z0-9]/g, '');
}

/** Escapes text for an HTML text or attribute position (used for the few static strings here). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface ShellOptions {
  title: string;
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
  nonce: string;
  /** Static markup of the page body (no user data). */
  body: string;
}

export function contentSecurityPolicy(cspSource: string, n: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    `style-src ${cspSource} 'nonce-${n}'`,
    `script-src 'nonce-${n}'`,
    "connect-src 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function webviewShell(o: ShellOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(o.codiconUri)}" nonce="${o.nonce}">
<link rel="stylesheet" href="${escapeHtml(o.styleUri)}" nonce="${o.nonce}">
<title>${escapeHtml(o.title)}</title>
</head>
<body>
${o.body}
<script nonce="${o.nonce}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
