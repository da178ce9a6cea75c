// ESLint flat config: the TypeScript recommended rules (syntax only, no type information: fast enough
// for every commit), unused code as an error, and no line over 140 characters.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', 'coverage/', 'resources/', 'bench/out/', 'bench/.run-*/', '.ci/.cache/', 'demo-*/'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,js,mjs}', 'bin/siard-ocfl'],
    languageOptions: { globals: globals.node, ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        // `_name` marks a parameter or binding kept on purpose (a callback's signature, a destructured rest).
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Prettier does not break strings, comments or template literals: this catches the lines it leaves long.
      'max-len': ['error', { code: 140, ignoreUrls: true }],
      // Control characters are what this code strips from XML text and checks in terminal output.
      'no-control-regex': 'off',
      // `const self = this` feeds async generators and object-literal methods, where no arrow function fits.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    // Hostile tests edit parsed JSON of any shape on purpose.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
