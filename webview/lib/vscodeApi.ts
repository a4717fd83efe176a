/** The webview side of postMessage, typed by the message unions of src/present/webviewMessages.ts. */
declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

export interface Channel<In, Out> {
  post(message: Out): void;
  onMessage(handler: (message: In) => void): void;
  getState<S>(): S | undefined;
  setState<S>(state: S): void;
}

export function channel<In, Out>(): Channel<In, Out> {
  const api = acquireVsCodeApi();
  return {
    post: (m) => api.postMessage(m),
    onMessage: (handler) => window.addEventListener('message', (e: MessageEvent) => handler(e.data as In)),
    getState: <S>() => api.getState() as S | undefined,
    setState: (s) => api.setState(s),
  };
}
