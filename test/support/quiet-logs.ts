import { Logger } from '@nestjs/common';
import { logLevelsFrom } from '@app/config';

// Library code inside test processes logs through Nest's static Logger: warnings and errors only,
// unless LOG_LEVEL asks for more.
Logger.overrideLogger(logLevelsFrom(process.env.LOG_LEVEL, 'warn'));
