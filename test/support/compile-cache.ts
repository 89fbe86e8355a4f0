import * as path from 'node:path';

// The services a test starts keep V8's compiled code on disk (Node's module compile cache), so the
// next test's boot of the same build skips most of the parsing: test files start the platform some
// hundred times, five processes at once on two cores. The cache is checked against each file's
// content, so a rebuilt service is compiled afresh.
process.env.NODE_COMPILE_CACHE ??= path.resolve(__dirname, '..', '..', 'node_modules', '.cache', 'node-compile-cache');
