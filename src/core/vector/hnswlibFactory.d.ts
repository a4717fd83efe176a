/** hnswlib-wasm 0.8.2's Emscripten factory, imported directly by hnswlib.ts (the package ships no typings for it). */
declare module 'hnswlib-wasm/dist/hnswlib-317962d7.js' {
  const factory: () => Promise<unknown>;
  export default factory;
}
