// report.pdf from report.md with two Debian packages: cmark-gfm (CommonMark with
// GitHub's tables) writes the HTML, WeasyPrint lays it out on A4 pages with the
// figures (PNG) in place. Both are small (2.4 MB with their dependencies here),
// where pandoc with a LaTeX engine would be hundreds.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "process.hpp"
#include "report.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

// The page: tables as grids in a small font (the report is mostly tables),
// figures at the text's width.
constexpr const char* kHead = R"(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>sibench report</title>
<style>
@page { size: A4; margin: 14mm; @bottom-center { content: counter(page); font-size: 8pt } }
body { font-family: sans-serif; font-size: 9pt; line-height: 1.3 }
h1 { font-size: 15pt } h2 { font-size: 12pt; border-bottom: 0.5pt solid #333 }
table { border-collapse: collapse; margin: 4pt 0 }
th, td { border: 0.5pt solid #999; padding: 1pt 4pt; font-size: 7.5pt; vertical-align: top }
img { max-width: 100%; page-break-inside: avoid }
pre, code { font-size: 7.5pt }
</style></head><body>
)";

std::string failure(const std::string& step, const ProcessResult& result, const fs::path& log) {
    if (!result.error.empty()) return fmt::format("{}: {}", step, result.error);
    return fmt::format("{} failed (exit status {}): {}", step, result.exit_status,
                       tail_file(log.string(), 5));
}

}  // namespace

std::string write_report_pdf(const std::string& out_dir) {
    const std::string cmark = find_program("cmark-gfm");
    const std::string weasyprint = find_program("weasyprint");
    if (cmark.empty() || weasyprint.empty())
        return "a PDF needs cmark-gfm and weasyprint (apt-get install cmark-gfm weasyprint)";
    const fs::path dir(out_dir);
    const fs::path body = dir / "report.body.html", html = dir / "report.html",
                   log = dir / "report-pdf.log";
    fs::remove(log);
    // cmark-gfm writes to stdout only.
    const Command to_html{{cmark, "-e", "table", (dir / "report.md").string()}, {}};
    if (const auto result = run_process_to(to_html, body.string(), log.string(), 60);
        result.exit_status != 0)
        return failure("cmark-gfm", result, log);
    {
        std::ifstream in(body);
        std::ostringstream text;
        text << in.rdbuf();
        std::ofstream(html, std::ios::trunc) << kHead << text.str() << "</body></html>\n";
    }
    fs::remove(body);
    // Relative image paths (../plots, figures/) resolve against the HTML's folder.
    const Command to_pdf{{weasyprint, "--quiet", html.string(), (dir / "report.pdf").string()},
                         {}};
    const auto result = run_process(to_pdf, log.string(), 300, dir.string());
    fs::remove(html);
    if (result.exit_status != 0) return failure("weasyprint", result, log);
    fs::remove(log);
    return "";
}

}  // namespace si::harness
