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
      // Prettier wraps code at 140 but never comments or literals: this holds every line to 140, comments, strings, templates,
      // regexes, URLs and doc-comment table rows included (a long message is split into '...' + '...', a long regex is built
      // from String.raw parts, a table cell too wide for its row moves into a numbered note below the table).
      'max-len': [
        'error',
        {
          code: 140,
          ignoreUrls: false,
          ignoreStrings: false,
          ignoreTemplateLiterals: false,
          ignoreRegExpLiterals: false,
        },
      ],
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
