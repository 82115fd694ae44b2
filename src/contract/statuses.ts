/** Workflow statuses: GET /v1/task-statuses. */
import { Type, type Static } from 'typebox';

export const TaskStatus = Type.Object({
  id: Type.Number(),
  name: Type.String(),
  color: Type.Union([Type.String(), Type.Null()], { description: 'Hex colour, or null if unset.' }),
  isDefault: Type.Boolean(),
  isCompleted: Type.Boolean(),
  order: Type.Number(),
});
export type TaskStatus = Static<typeof TaskStatus>;
