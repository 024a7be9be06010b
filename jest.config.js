/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }],
  },
  // Real servers on loopback: give slow shared machines room.
  testTimeout: 60_000,
  detectOpenHandles: false,
  // One suite at a time: e2e suites measure shares over real timers, and two
  // of them side by side on a 2-core machine starve each other's event loops.
  maxWorkers: 1,
};
