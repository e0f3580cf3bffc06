/**
 * The one signal path of every command: the first SIGINT or SIGTERM aborts the returned signal
 * (its reason is the signal's name) and the listener goes away, so a second signal ends the
 * process the default way, e.g. when an orderly shutdown hangs.
 */
export function onShutdown(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const dispose = () => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  const on = (sig: NodeJS.Signals) => {
    dispose();
    controller.abort(sig);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return { signal: controller.signal, dispose };
}
