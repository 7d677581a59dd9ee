// The ids of Coroscope's commands (as contributed in package.json). A module of its own so
// that activation can register them without loading the commands' code.

export const COMMANDS = {
  runCrawl: 'coroscope.runCrawl',
  openInspector: 'coroscope.openInspector',
  pause: 'coroscope.pause',
  stepTick: 'coroscope.stepTick',
  stepTask: 'coroscope.stepTask',
  continue: 'coroscope.continue',
  cancelTask: 'coroscope.cancelTask',
  showTrace: 'coroscope.showTrace',
  openSample: 'coroscope.openSample',
  openSampleStep: 'coroscope.openSampleStep',
  crawlStep: 'coroscope.crawlStep',
  compareApproaches: 'coroscope.compareApproaches',
  stop: 'coroscope.stop',
  debugRun: 'coroscope.debugRun',
  showLog: 'coroscope.showLog',
  saveRecording: 'coroscope.saveRecording',
  openRecording: 'coroscope.openRecording',
  newProgram: 'coroscope.newProgram',
} as const;

export const PANEL_VIEW_TYPE = 'coroscope.inspector';
