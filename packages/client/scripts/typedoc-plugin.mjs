// TypeDoc plugin for the SDK's reference (typedoc.json): leaves out the services' raw OpenAPI path maps
// (AuthPaths, SocialPaths, RegistryPaths: generated, thousands of members, documented by the OpenAPI documents
// themselves in openapi/*.json), accepts openapi-typescript's `@description` tag in the generated comments, and
// fails the run (an error) for a realtime event without a description: every member of ServerEvents and
// LifecycleEvents is an event (TypeDoc's own notDocumented validation covers classes, methods and functions).
import { Converter, ReflectionKind } from 'typedoc';

const HIDDEN = new Set(['AuthPaths', 'SocialPaths', 'RegistryPaths']);
const EVENT_MAPS = ['ServerEvents', 'LifecycleEvents'];

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.on('bootstrapEnd', () => {
    const tags = app.options.getValue('blockTags');
    if (!tags.includes('@description')) app.options.setValue('blockTags', [...tags, '@description']);
  });
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const r of context.project.getReflectionsByKind(ReflectionKind.Interface)) {
      if (HIDDEN.has(r.name)) context.project.removeReflection(r);
    }
  });
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    for (const map of EVENT_MAPS) {
      const events = context.project.getChildByName(map);
      if (!events) app.logger.error(`${map}: not found in the reference`);
      for (const event of events?.children ?? []) {
        if (!event.comment?.summary.some((part) => part.text.trim())) app.logger.error(`the realtime event ${map}.${event.name} has no description`);
      }
    }
  });
}
