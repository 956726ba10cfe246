// How a profile's TOML tables are read: typed values whose errors name the file, the
// table and the key, and the settings [defaults] and a [[study]] share. Used by
// profile.cpp (micro-benchmark and suite studies) and profile_kinds.cpp (the other
// kinds of study).
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cpptoml.h>
#include <fmt/format.h>

#include "profile.hpp"
#include "units.hpp"

namespace si::harness::profile_reading {

using TablePtr = std::shared_ptr<cpptoml::table>;
using BasePtr = std::shared_ptr<cpptoml::base>;

// Reads typed values out of one TOML table; every error names the file, the table
// and the key, so a typo in a profile is found without reading this code.
class Reader {
  public:
    Reader(std::string origin, std::string where)
        : origin_(std::move(origin)), where_(std::move(where)) {}

    [[noreturn]] void fail(std::string_view key, std::string_view message) const {
        throw ProfileError(fmt::format("{}: {}{}: {}", origin_, where_,
                                       key.empty() ? "" : fmt::format(" key '{}'", key), message));
    }

    // Unknown keys are errors: a misspelt "iteration" must not silently mean the default.
    void check_keys(const TablePtr& table, const std::vector<std::string_view>& valid) const {
        for (const auto& [key, value] : *table) {
            if (std::find(valid.begin(), valid.end(), key) != valid.end()) continue;
            std::string names;
            for (auto name : valid) names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
            fail(key, fmt::format("unknown key (valid: {})", names));
        }
    }

    std::optional<std::string> string(const TablePtr& table, const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        auto value = table->get_as<std::string>(key);
        if (!value) fail(key, "expected a string");
        return *value;
    }

    std::optional<long> integer(const TablePtr& table, const std::string& key, long min,
                                long max) const {
        if (!table->contains(key)) return std::nullopt;
        auto value = table->get_as<std::int64_t>(key);
        if (!value) fail(key, "expected an integer");
        if (*value < min || *value > max) fail(key, fmt::format("must be {}..{}", min, max));
        return static_cast<long>(*value);
    }

    std::optional<double> number(const TablePtr& table, const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        auto value = table->get_as<double>(key);
        if (!value) fail(key, "expected a number");
        if (!(*value > 0)) fail(key, "must be positive");
        return *value;
    }

    std::optional<bool> boolean(const TablePtr& table, const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        auto value = table->get_as<bool>(key);
        if (!value) fail(key, "expected true or false");
        return *value;
    }

    std::optional<std::vector<std::string>> strings(const TablePtr& table,
                                                    const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        auto array = table->get_array(key);
        auto values = array ? array->get_array_of<std::string>()
                            : cpptoml::option<std::vector<std::string>>();
        if (!values) fail(key, "expected an array of strings");
        return *values;
    }

    std::optional<std::vector<int>> integers(const TablePtr& table, const std::string& key, int min,
                                             int max) const {
        if (!table->contains(key)) return std::nullopt;
        auto array = table->get_array(key);
        auto values = array ? array->get_array_of<std::int64_t>()
                            : cpptoml::option<std::vector<std::int64_t>>();
        if (!values || values->empty()) fail(key, "expected a non-empty array of integers");
        std::vector<int> result;
        for (auto v : *values) {
            if (v < min || v > max) fail(key, fmt::format("values must be {}..{}", min, max));
            result.push_back(static_cast<int>(v));
        }
        return result;
    }

    // Sizes as integers (bytes) or strings with k/m suffixes, not mixed (TOML arrays
    // are homogeneous).
    std::optional<std::vector<std::uint64_t>> sizes(const TablePtr& table,
                                                    const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        auto array = table->get_array(key);
        if (!array) fail(key, "expected an array of sizes, e.g. [\"16k\", \"1m\"]");
        std::vector<std::uint64_t> result;
        if (auto words = array->get_array_of<std::string>()) {
            for (const auto& word : *words) result.push_back(size(key, word));
        } else if (auto numbers = array->get_array_of<std::int64_t>()) {
            for (auto number : *numbers) {
                if (number < 0) fail(key, "sizes must not be negative");
                result.push_back(static_cast<std::uint64_t>(number));
            }
        } else {
            fail(key, "expected an array of sizes, e.g. [\"16k\", \"1m\"] or [16384]");
        }
        if (result.empty()) fail(key, "expected at least one size");
        return result;
    }

    std::optional<std::uint64_t> single_size(const TablePtr& table, const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        if (auto word = table->get_as<std::string>(key)) return size(key, *word);
        if (auto number = table->get_as<std::int64_t>(key); number && *number >= 0)
            return static_cast<std::uint64_t>(*number);
        fail(key, "expected a size such as \"16k\" or 16384");
    }

    std::optional<EnvList> env(const TablePtr& table, const std::string& key) const {
        if (!table->contains(key)) return std::nullopt;
        auto inner = table->get_table(key);
        if (!inner) fail(key, "expected a table of strings, e.g. { SI_EAGER_LIMIT = \"32k\" }");
        EnvList result;
        for (const auto& [name, value] : *inner) {
            auto text = inner->get_as<std::string>(name);
            if (!text) fail(key, fmt::format("value of '{}' must be a string", name));
            result.emplace_back(name, *text);
        }
        return result;
    }

  private:
    std::uint64_t size(std::string_view key, const std::string& word) const {
        try {
            return parse_size(word);
        } catch (const std::invalid_argument& error) {
            fail(key, error.what());
        }
    }

    std::string origin_;
    std::string where_;
};

// What [defaults] and a [[study]] may both set; a study's own value wins.
struct Settings {
    std::optional<std::vector<std::string>> configs;
    std::optional<std::vector<int>> helpers;
    std::optional<std::vector<int>> pairs;
    std::optional<std::vector<std::uint64_t>> sizes;
    std::optional<std::uint64_t> min_size;
    std::optional<std::uint64_t> max_size;
    std::optional<long> iterations;
    std::optional<long> warmup;
    std::optional<double> timeout_s;
    std::optional<std::vector<std::string>> args;
    std::optional<EnvList> env;
};

inline const std::vector<std::string_view> kSettingKeys = {
    "configs",    "helpers", "pairs",   "sizes", "min_size", "max_size",
    "iterations", "warmup",  "timeout", "args",  "env"};

Settings read_settings(const Reader& reader, const TablePtr& table);

template <typename T>
T pick(const std::optional<T>& own, const std::optional<T>& fallback, T builtin) {
    if (own) return *own;
    if (fallback) return *fallback;
    return builtin;
}

// Configuration names, each once, in the order given (key `configs`).
std::vector<Config> read_configs(const Reader& reader, const std::vector<std::string>& names);

// Names become file names and plot titles: lower-case letters, digits, '-' and '_'.
void check_names(const Reader& reader, const Study& study);

// A Google Benchmark study (kind = "gbench") and a study of any MPI program
// (kind = "app"), from their [[study]] table.
Study make_gbench_study(const Reader& reader, const TablePtr& table, const Settings& defaults);
Study make_program_study(const Reader& reader, const TablePtr& table, const Settings& defaults);

}  // namespace si::harness::profile_reading
