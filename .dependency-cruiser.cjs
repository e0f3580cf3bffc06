/**
 * The layering of src/ (docs/ARCHITECTURE.md), checked by `npm run lint:layers` and by
 * test/architecture/layers.test.ts:
 *
 *   cli > runtime (its use cases, src/runtime/usecases, above its composition) > roles (api | producers | processors | webhooks | inspect)
 *       > the rest (events, kafka, warehouse, http, identity, util, stats, signing, stack,
 *         config, log, topics, conformance) > core
 *
 * A module imports only its own layer or lower ones. Besides that: a role never imports another
 * role; the API never imports kafka, stack or http (it only reads the warehouse);
 * src/conformance imports nothing of the project but itself and src/core, and src/core nothing
 * but itself, and neither imports a node: module that does I/O (rules and their helpers are
 * pure). Type-only imports count like any other.
 */

// The first path segment under src/ names the layer (`src/config.ts` is `config`).
const ROLES = 'api|producers|processors|webhooks|inspect';
const ABOVE_ROLES = 'runtime|cli';
// The use cases (one owner or maintainer task each) sit in runtime, above its composition modules.
const USECASES = '^src/runtime/usecases/';
const layer = (names) => `^src/(${names})(/|\\.ts$)`;
// node: builtins that reach the disk, the network or other processes.
const IO_BUILTINS =
  '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|dns/promises|child_process|cluster|worker_threads|readline)$';

const forbidden = [
  {
    name: 'no-circular',
    comment: 'no import cycle, type-only imports included (tsPreCompilationDeps keeps them)',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'usecases-import-cli',
    comment: 'the use cases are below cli',
    severity: 'error',
    from: { path: USECASES },
    to: { path: layer('cli') },
  },
  {
    name: 'runtime-imports-above',
    comment: "runtime's composition is below its use cases and cli",
    severity: 'error',
    from: { path: layer('runtime'), pathNot: USECASES },
    to: { path: [USECASES, layer('cli')] },
  },
  {
    name: 'role-imports-above',
    comment: 'the roles are below runtime, the use cases and cli',
    severity: 'error',
    from: { path: layer(ROLES) },
    to: { path: layer(ABOVE_ROLES) },
  },
  {
    name: 'role-imports-role',
    comment: 'a role never imports another role',
    severity: 'error',
    from: { path: layer(ROLES) },
    to: { path: layer(ROLES), pathNot: '^src/$1(/|\\.ts$)' },
  },
  {
    name: 'lower-layer-imports-role',
    comment: 'the lower layers (everything below the roles) import no role and nothing above',
    severity: 'error',
    from: { path: '^src/', pathNot: layer(`${ROLES}|${ABOVE_ROLES}`) },
    to: { path: layer(`${ROLES}|${ABOVE_ROLES}`) },
  },
  {
    name: 'api-imports-writers',
    comment: 'the API reads the warehouse only: no kafka, stack or outbound http',
    severity: 'error',
    from: { path: layer('api') },
    to: { path: layer('kafka|stack|http') },
  },
  {
    name: 'conformance-imports-outside',
    comment: 'src/conformance is pure: it imports no file of the project but its own and src/core (npm packages are fine)',
    severity: 'error',
    from: { path: layer('conformance') },
    to: { dependencyTypes: ['local'], pathNot: layer('conformance|core') },
  },
  {
    name: 'core-imports-outside',
    comment: 'src/core is the lowest layer: it imports no file of the project outside itself',
    severity: 'error',
    from: { path: layer('core') },
    to: { dependencyTypes: ['local'], pathNot: layer('core') },
  },
  {
    name: 'pure-does-io',
    comment: 'src/conformance and src/core are pure: no node: module that does I/O',
    severity: 'error',
    from: { path: layer('conformance|core') },
    to: { dependencyTypes: ['core'], path: IO_BUILTINS },
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
