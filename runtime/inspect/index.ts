// The inspector engine's public face, for the runtime host and the CLI: read suspended
// generator frames (node:inspector, in-process), map positions to TypeScript, summarise a
// loop's tasks, read a task's frames with locals, and print `ps` / `pstree` dumps.
// Turn coroutine tracking on (setCoroutineTracking(true)) before the coroutines are created.

export { InspectorSession, InspectorError, inspectorSession, type ScriptInfo } from './inspector-session';
export {
  GeneratorReader,
  generatorReader,
  type GeneratorFrame,
  type GeneratorLocation,
  type GeneratorState,
  type LocalVariable,
  type ReadChildrenOptions,
  type ReadGeneratorOptions,
} from './generator-reader';
export {
  HandleTable,
  previewValue,
  valueOfPreview,
  childrenOf,
  classNameOf,
  PREVIEW_STRING,
  PREVIEW_TEXT,
  type ValuePreview,
  type NamedPreview,
  type ChildrenPage,
  type HandleSink,
  type ValueType,
} from './value-preview';
export {
  SourcePositionMapper,
  sourcePositions,
  sourceMappingUrlOf,
  sourceVariableName,
  urlToPath,
  type SourcePosition,
} from './source-positions';
export { TaskRecorder, type TaskRecord } from './task-recorder';
export {
  snapshotTasks,
  taskFrames,
  framesOfTasks,
  type TasksSnapshot,
  type TaskFrame,
  type FramesOptions,
} from './task-snapshot';
export {
  summarizeTasks,
  taskState,
  describeTarget,
  describeTask,
  awaitedTasks,
  outcomeOf,
  awaitInfoOf,
  AwaitIndex,
  type SummaryOptions,
} from './task-summaries';
export type { TaskState, AwaitInfo, TaskSummary } from '../../protocol/host-protocol';
export { formatPsTable, formatPsTree, IDLE_KINDS, type DumpOptions } from './dumps';
