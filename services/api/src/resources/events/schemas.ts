/**
 * The event as the API shows it (docs/api.md section 7), also the body of every delivery: its
 * `type` is one of every event type the resources declare (@dms/domain's registry).
 */
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '@dms/domain';
import { StringEnum, objectId } from '@dms/domain/kernel';

/** The public event object. */
export const Event = Type.Object({
  id: objectId('evt'),
  object: Type.Literal('event'),
  type: StringEnum(EVENT_TYPES),
  api_version: Type.String({ description: 'API version whose shape `data.object` has.' }),
  created_at: Type.String({ format: 'date-time' }),
  data: Type.Object({
    object: Type.Unsafe<unknown>({ type: 'object', additionalProperties: true, description: 'The affected object right after the change.' }),
  }),
});
