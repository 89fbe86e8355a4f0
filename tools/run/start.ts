import { runPlatform } from './run-platform';

runPlatform();
