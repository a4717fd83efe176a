/**
 * The Webhooks view (docs/changes.md "In VS Code"): a tree view in the Agent Memory container,
 * shown once webhooks are configured (agent.yaml or settings `webhooks.endpoints`), listing each
 * webhook with its state and counts and, under it, its recent deliveries and failures. The engine
 * events `webhooks.delivery` (an attempt) and `webhooks.changed` (set up again: opened, reloaded,
 * a secret made) keep it fresh. Its commands: Send Test Event, Copy Signing Secret (makes one,
 * after saying that nothing is sent before it exists) and Retry Failed Deliveries.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { WebhookDelivery, WebhookInfo, WebhooksOverview } from '../../engine/protocol';
import { errorLine } from '../../present/errorText';
import { plural } from '../../core/text/plural';
import { commandRegistrar } from '../common/commandTable';
import { Debounced } from '../common/debounce';
import type { Logger } from '../host/log';
import * as text from './webhooksText';
import type { CommandId, ContextKey } from '../commandIds';
import { isDeactivating } from '../host/shutdown';

export const WEBHOOKS_VIEW_ID = 'agentMemory.webhooks';
/** Context key: webhooks are configured (the view is shown). */
export const WEBHOOKS_CONTEXT = 'agentMemory.webhooksConfigured' satisfies ContextKey;
/** Context key: some webhook has failed deliveries that can be sent again (the view title's Retry). */
export const WEBHOOKS_FAILED_CONTEXT = 'agentMemory.webhooksFailed' satisfies ContextKey;
/** Deliveries listed under each webhook. */
const RECENT = 10;

export const WEBHOOK_COMMANDS = {
  refresh: 'agentMemory.refreshWebhooks',
  sendTest: 'agentMemory.sendWebhookTestEvent',
  copySecret: 'agentMemory.copyWebhookSecret',
  retry: 'agentMemory.retryWebhookDeliveries',
} as const satisfies Record<string, CommandId>;

export type WebhookNode =
  | { kind: 'webhook'; webhook: WebhookInfo; keptIn: string }
  | { kind: 'delivery'; delivery: WebhookDelivery }
  | { kind: 'message'; text: string; icon?: string; command?: vscode.Command };

const icon = (look: text.RowLook) => new vscode.ThemeIcon(look.icon, look.color ? new vscode.ThemeColor(look.color) : undefined);

export class WebhooksTreeProvider implements vscode.TreeDataProvider<WebhookNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<WebhookNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly refreshLater = new Debounced(() => this.refresh(), 300);
  private readonly subs: vscode.Disposable[] = [];
  /** The last list shown (the palette commands pick from it). */
  overview: WebhooksOverview | undefined;
  view: vscode.TreeView<WebhookNode> | undefined;

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => {
        // A change queues deliveries (changes.appended); an attempt records how one went.
        if (e.type === 'webhooks.delivery' || e.type === 'webhooks.changed') this.refreshLater.trigger();
        if (e.type === 'changes.appended' && e.store === 'project' && this.overview?.webhooks.length) this.refreshLater.trigger();
      }),
      engine.onStateChange((s) => {
        this.refreshLater.hold(s.state === 'stopping' || s.state === 'stopped');
        if (s.state === 'ready') void this.load();
      }),
    );
  }

  refresh(): void {
    void this.load();
  }

  /** Lists the webhooks again, sets the context key that shows the view, and redraws it. */
  async load(): Promise<WebhooksOverview | undefined> {
    try {
      this.overview = await this.engine.request('webhooks.list', {});
    } catch {
      this.overview = undefined; // getChildren says why
    }
    this.setContext(this.overview);
    // Redrawn only while shown (VS Code asks for the rows when the view opens): the view is hidden
    // or collapsed in most windows, and a redraw asked just before a window closes is cancelled
    // and logged as an error (shutdown.ts).
    if (!isDeactivating() && this.view?.visible) this.changed.fire(undefined);
    return this.overview;
  }

  private setContext(o: WebhooksOverview | undefined): void {
    void vscode.commands.executeCommand('setContext', WEBHOOKS_CONTEXT, !!o?.webhooks.length);
    void vscode.commands.executeCommand('setContext', WEBHOOKS_FAILED_CONTEXT, !!o?.webhooks.some((w) => w.retryable > 0));
    // The view starts collapsed (package.json): failed deliveries still show, as a badge on it and the activity bar.
    const failed = o?.webhooks.reduce((n, w) => n + w.retryable, 0) ?? 0;
    if (this.view)
      this.view.badge = failed
        ? { value: failed, tooltip: plural(failed, 'failed webhook delivery', 'failed webhook deliveries') }
        : undefined;
  }

  async getChildren(node?: WebhookNode): Promise<WebhookNode[]> {
    if (!node) return this.roots();
    if (node.kind !== 'webhook') return [];
    const w = node.webhook;
    const out: WebhookNode[] = [];
    if (w.state === 'needs_secret') {
      out.push({
        kind: 'message',
        text: 'Nothing is sent until it has a signing secret: Copy Signing Secret makes one.',
        icon: 'key',
        command: { command: WEBHOOK_COMMANDS.copySecret, title: 'Copy Signing Secret', arguments: [w.name] },
      });
    }
    try {
      const recent = await this.engine.request('webhooks.deliveries', { name: w.name, limit: RECENT });
      out.push(...recent.map((delivery): WebhookNode => ({ kind: 'delivery', delivery })));
      if (!recent.length && w.state !== 'needs_secret') out.push({ kind: 'message', text: 'No deliveries yet.' });
    } catch (e) {
      out.push({ kind: 'message', text: `Cannot list deliveries: ${errorLine(e)}`, icon: 'error' });
    }
    return out;
  }

  private async roots(): Promise<WebhookNode[]> {
    try {
      const o = await this.engine.request('webhooks.list', {});
      this.overview = o;
      this.setContext(o);
      // Empty: the view's welcome text says how to configure one.
      return o.webhooks.map((webhook): WebhookNode => ({ kind: 'webhook', webhook, keptIn: o.secretsKeptIn }));
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list webhooks: ${errorLine(e)}`, icon: 'error' }];
    }
  }

  getTreeItem(node: WebhookNode): vscode.TreeItem {
    if (node.kind === 'message') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
      if (node.command) item.command = node.command;
      item.tooltip = node.text;
      return item;
    }
    if (node.kind === 'delivery') {
      const d = node.delivery;
      const item = new vscode.TreeItem(text.deliveryTitle(d), vscode.TreeItemCollapsibleState.None);
      item.id = `delivery:${d.id}:${d.status}:${d.attempts}`;
      item.description = text.deliveryDescription(d);
      item.tooltip = text.deliveryTooltip(d);
      item.iconPath = icon(text.deliveryLook(d));
      item.contextValue = `webhookDelivery.${d.status}`;
      item.accessibilityInformation = { label: `${item.label as string}, ${item.description}` };
      return item;
    }
    const w = node.webhook;
    const item = new vscode.TreeItem(w.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `webhook:${w.name}`;
    item.description = text.webhookDescription(w);
    item.tooltip = text.webhookTooltip(w, node.keptIn);
    item.iconPath = icon(text.webhookLook(w));
    item.contextValue = text.webhookContext(w);
    item.accessibilityInformation = { label: `Webhook ${w.name}, ${item.description}` };
    return item;
  }

  dispose(): void {
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

/** The webhook's name of a command's argument: a webhook's row, or a name (from a notification button or a test). */
function nameOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  const n = arg as WebhookNode | undefined;
  return n && typeof n === 'object' && n.kind === 'webhook' ? n.webhook.name : undefined;
}

/** The webhook a command is for: the row it was run on, a name, or one picked from the list. */
async function chooseWebhook(tree: WebhooksTreeProvider, arg: unknown, placeHolder: string): Promise<WebhookInfo | undefined> {
  const overview = (await tree.load()) ?? { webhooks: [] };
  const name = nameOf(arg);
  if (name) return overview.webhooks.find((w) => w.name === name);
  if (!overview.webhooks.length) {
    void vscode.window.showInformationMessage(
      'No webhooks are configured. Add them under webhooks.endpoints in agent.yaml (docs/changes.md "Webhooks").',
    );
    return undefined;
  }
  if (overview.webhooks.length === 1) return overview.webhooks[0];
  const pick = await vscode.window.showQuickPick(
    overview.webhooks.map((w) => ({ label: w.name, description: w.url, detail: text.webhookDescription(w), w })),
    { placeHolder },
  );
  return pick?.w;
}

export function registerWebhooksView(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): WebhooksTreeProvider {
  const tree = new WebhooksTreeProvider(engine);
  tree.view = vscode.window.createTreeView(WEBHOOKS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(
    tree,
    tree.view,
    tree.view.onDidChangeVisibility((e) => {
      if (e.visible) tree.refresh();
    }),
  );
  const run = commandRegistrar(context, log);

  run(WEBHOOK_COMMANDS.refresh, 'refresh webhooks', () => tree.load());

  run(WEBHOOK_COMMANDS.copySecret, 'copy the signing secret', async (arg?: unknown) => {
    const w = await chooseWebhook(tree, arg, 'Copy the signing secret of which webhook?');
    if (!w) return undefined;
    if (w.state === 'needs_secret') {
      const make = 'Make and Copy Secret';
      const pick = await vscode.window.showWarningMessage(text.makeSecretQuestion(w), { modal: true }, make);
      if (pick !== make) return undefined;
    }
    const r = await engine.request('webhooks.secret', { name: w.name });
    await vscode.env.clipboard.writeText(r.secret);
    log.info(`webhooks: the signing secret of ${r.name} was ${r.created ? 'made and ' : ''}copied (kept in ${r.keptIn})`);
    void vscode.window.showInformationMessage(text.secretCopied(r));
    void tree.load();
    return r.created;
  });

  run(WEBHOOK_COMMANDS.sendTest, 'send a test event', async (arg?: unknown) => {
    const w = await chooseWebhook(tree, arg, 'Send a test event to which webhook?');
    if (!w) return undefined;
    if (w.state === 'needs_secret') {
      const copy = 'Copy Signing Secret';
      const pick = await vscode.window.showWarningMessage(`${w.name} has no signing secret yet, so nothing can be sent to it.`, copy);
      if (pick === copy) await vscode.commands.executeCommand(WEBHOOK_COMMANDS.copySecret, w.name);
      return undefined;
    }
    const d = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Sending a test event to ${w.name}…` },
      () => engine.request('webhooks.test', { name: w.name }),
    );
    const outcome = text.testOutcome(d);
    log.info(`webhooks: test event to ${w.name}: ${outcome.message}`);
    if (outcome.ok) void vscode.window.showInformationMessage(outcome.message);
    else void vscode.window.showErrorMessage(outcome.message);
    void tree.load();
    return d.status;
  });

  run(WEBHOOK_COMMANDS.retry, 'retry failed deliveries', async (arg?: unknown) => {
    // From a webhook's row: its deliveries; from the view's title or the palette: every webhook's.
    const name = nameOf(arg);
    const r = await engine.request('webhooks.retry', name ? { name } : {});
    void vscode.window.showInformationMessage(text.retried(r.requeued, name));
    void tree.load();
    return r.requeued;
  });
  return tree;
}
