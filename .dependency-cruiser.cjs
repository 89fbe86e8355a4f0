/**
 * The layers, enforced (`npm run lint`): services stand alone, libraries serve everyone and know no
 * caller, tools build on libraries only, and a pure decision (a `*.rules.ts` file) reaches no
 * database, framework or broker client, even through another module.
 */
const infrastructure = 'node_modules/(knex|pg|kafkajs|@kafkajs|@nestjs|mappersmith)/';

module.exports = {
  forbidden: [
    {
      name: 'no-app-imports-another-app',
      comment: 'Services talk only through Kafka events: what two of them share belongs in libs/.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'libs-know-no-caller',
      comment: 'A library is used by the services and tools; it imports none of them.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^(apps|tools|test|bench)/' },
    },
    {
      name: 'libraries-entered-by-their-index',
      comment: 'What a library offers is what its index exports (`@app/<lib>`); its other files are its own.',
      severity: 'error',
      from: { path: '^(apps|tools|test|bench)/' },
      to: { path: '^libs/[^/]+/src/', pathNot: ['^libs/[^/]+/src/index\\.ts$', '^libs/messaging/src/testing\\.ts$'] },
    },
    {
      name: 'messaging-parts-for-its-tests-only',
      comment:
        "`@app/messaging/testing` runs the consumer and relay by hand: for the mechanism's tests and the relay benchmark, never a service, library or tool.",
      severity: 'error',
      from: { path: '^(apps|libs|tools)/', pathNot: '^libs/messaging/' },
      to: { path: '^libs/messaging/src/testing\\.ts$' },
    },
    {
      name: 'libraries-enter-each-other-by-the-index',
      comment: 'One library uses another through its index (`@app/<lib>`), never a file inside it.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/', pathNot: ['^libs/$1/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'tools-use-only-libs',
      comment: "A CLI reads through libraries (move what it needs from a service into one), never a service's internals.",
      severity: 'error',
      from: { path: '^tools/' },
      to: { path: '^(apps|test|bench)/' },
    },
    {
      name: 'pure-rules-reach-no-infrastructure',
      comment: 'A *.rules.ts file decides from its arguments alone, so it is unit-tested without any infrastructure.',
      severity: 'error',
      from: { path: '\\.rules\\.ts$' },
      to: { path: infrastructure, reachable: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // bench/peers: packages of their own, with their own dependencies (the benchmark's peers).
    exclude: { path: '(^|/)(dist|\\.stack|coverage)/|^bench/peers/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
