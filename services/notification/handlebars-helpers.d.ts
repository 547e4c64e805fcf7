/** `@budibase/handlebars-helpers` ships no types: the entry point registers the named helper groups. */
declare module '@budibase/handlebars-helpers' {
  import type Handlebars from 'handlebars';
  export default function helpers(
    groups: string[],
    options: { handlebars: typeof Handlebars },
  ): Record<string, Handlebars.HelperDelegate>;
}
