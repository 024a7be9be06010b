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
  maxWorkers: 2,
};
