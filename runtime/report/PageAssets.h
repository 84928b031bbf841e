#pragma once
// The page's own stylesheet and script (written for ptxsim; the chart library is separate and
// inlined from the file scripts/setup.sh fetched).

namespace ptxsim::report {

/// CSS of the report page.
extern const char *const kReportCss;
/// The report page's script: table sorting, expanding kernels into launches, the charts (when
/// uPlot is present), and `data-rendered`/`data-render-ms`/`data-errors` on <body> for tests.
extern const char *const kReportJs;

} // namespace ptxsim::report
