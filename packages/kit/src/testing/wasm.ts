/** Real wasm modules for tests, built from WebAssembly text with wabt (loaded only by the tests that build one). */

/** A compiler from WebAssembly text to a wasm binary (wabt initialised once for it). */
export async function watCompiler(): Promise<(text: string) => Buffer> {
  const { default: wabtInit } = await import('wabt');
  const wabt = await wabtInit();
  return (text) => {
    const mod = wabt.parseWat('m.wat', text);
    try {
      return Buffer.from(mod.toBinary({}).buffer);
    } finally {
      mod.destroy();
    }
  };
}
