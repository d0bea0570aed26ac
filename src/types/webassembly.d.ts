/**
 * The part of the WebAssembly JS API that src/retrieval/local/int-dots.ts uses. Node has it as a
 * global, but its types come with TypeScript's DOM library, which this project does not load.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  function validate(bytes: BufferSource): boolean;
}
