// Tiers by file suffix, each runnable alone with --selectProjects; an int spec beside the code (apps/,
// libs/: a reaction's, a store's) needs PostgreSQL alone and is the `db` tier. `chaos` stops shared
// infrastructure (the broker), so `npm test` runs it in a second pass. `npm test` runs the suites
// one at a time: an e2e suite runs five services beside the broker and the registry, and two of them
// at once on a two-core machine oversubscribe it (a service boot once stalled past its health wait).
const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@app/messaging/testing$': '<rootDir>/libs/messaging/src/testing',
    '^@app/(.*)$': '<rootDir>/libs/$1/src',
    '^@test/(.*)$': '<rootDir>/test/support/$1',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.stack/'],
  setupFiles: ['<rootDir>/test/support/quiet-logs.ts', '<rootDir>/test/support/kafka-as-admin.ts', '<rootDir>/test/support/compile-cache.ts'],
};

const needsStack = { globalSetup: '<rootDir>/test/support/global-setup.ts', setupFilesAfterEnv: ['<rootDir>/test/support/stop-leftover-services.ts'] };

module.exports = {
  maxWorkers: 2,
  // Generous: these suites wait on real processes; slowness is measured in bench/, never asserted.
  testTimeout: 180_000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['**/*.unit.spec.ts'] },
    { ...base, globalSetup: '<rootDir>/test/support/database-setup.ts', displayName: 'db', testMatch: ['<rootDir>/{apps,libs}/**/*.int.spec.ts'] },
    { ...base, ...needsStack, displayName: 'int', testMatch: ['<rootDir>/{test,tools,bench,spec}/**/*.int.spec.ts'] },
    { ...base, ...needsStack, displayName: 'e2e', testMatch: ['**/*.e2e.spec.ts'] },
    { ...base, ...needsStack, displayName: 'chaos', testMatch: ['**/*.chaos.spec.ts'] },
  ],
};
