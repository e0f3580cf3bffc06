/**
 * The layering of src/ (docs/ARCHITECTURE.md), checked by `npm run lint:layers` and by
 * test/architecture/layers.test.ts:
 *
 *   cli > runtime > (api | producers | processors) > the rest
 *   (events, kafka, warehouse, identity, util, stats, signing, stack, config, log, topics, conformance)
 *
 * A module imports only its own layer or lower ones. Besides that: producers and processors
 * never import each other; the API never imports producers, processors, kafka or stack;
 * src/conformance imports nothing outside itself and no node: module that does I/O (its rules
 * are pure); config imports no role. Type-only imports count like any other.
 */

// The first path segment under src/ names the layer (`src/config.ts` is `config`).
const ROLES = 'api|producers|processors|runtime|cli';
const layer = (names) => `^src/(${names})(/|\\.ts$)`;
// node: builtins that reach the disk, the network or other processes.
const IO_BUILTINS = '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|dns/promises|child_process|cluster|worker_threads|readline)$';

const forbidden = [
  {
    name: 'no-circular',
    comment: 'no import cycle, type-only imports included (tsPreCompilationDeps keeps them)',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'runtime-imports-cli',
    comment: 'runtime is below cli',
    severity: 'error',
    from: { path: layer('runtime') },
    to: { path: layer('cli') },
  },
  {
    name: 'role-imports-runtime-or-cli',
    comment: 'api, producers and processors are below runtime and cli',
    severity: 'error',
    from: { path: layer('api|producers|processors') },
    to: { path: layer('runtime|cli') },
  },
  {
    name: 'lower-layer-imports-role',
    comment: 'the lower layers (everything that is not a role) import no role',
    severity: 'error',
    from: { path: '^src/', pathNot: layer(ROLES) },
    to: { path: layer(ROLES) },
  },
  {
    name: 'producers-import-processors',
    comment: 'producers and processors never import each other',
    severity: 'error',
    from: { path: layer('producers') },
    to: { path: layer('processors') },
  },
  {
    name: 'processors-import-producers',
    comment: 'producers and processors never import each other',
    severity: 'error',
    from: { path: layer('processors') },
    to: { path: layer('producers') },
  },
  {
    name: 'api-imports-writers',
    comment: 'the API reads the warehouse only: no producers, processors, kafka or stack',
    severity: 'error',
    from: { path: layer('api') },
    to: { path: layer('producers|processors|kafka|stack') },
  },
  {
    name: 'conformance-imports-outside',
    comment: 'src/conformance is pure: it imports no file of the project outside itself (npm packages are fine)',
    severity: 'error',
    from: { path: layer('conformance') },
    to: { dependencyTypes: ['local'], pathNot: layer('conformance') },
  },
  {
    name: 'conformance-does-io',
    comment: 'src/conformance is pure: no node: module that does I/O',
    severity: 'error',
    from: { path: layer('conformance') },
    to: { dependencyTypes: ['core'], path: IO_BUILTINS },
  },
  {
    name: 'config-imports-role',
    comment: 'configuration imports no role',
    severity: 'error',
    from: { path: layer('config') },
    to: { path: layer(ROLES) },
  },
];

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // type-only imports are layering too
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
