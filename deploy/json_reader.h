// Field-by-field reading of a JSON document into structs, for the runtime's two JSON records
// (kernel metadata, model plan). Validation stops at the first problem; Fail records it with
// the JSON path where it is, e.g. `values[3].shape[1]: expected a non-negative integer, got -2`.
// Internal to deploy/ (.cc files only): it exposes nlohmann::json.
#ifndef TUNEFARM_DEPLOY_JSON_READER_H_
#define TUNEFARM_DEPLOY_JSON_READER_H_

#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "deploy/status.h"

namespace tunefarm::deploy {

class JsonReader {
 public:
  using json = nlohmann::json;

  // Errors carry `code` (kBadMetadata, kBadPlan, ...).
  explicit JsonReader(StatusCode code) : code_(code) {}

  Status error() const { return error_; }

  bool Fail(const std::string& where, const std::string& what) {
    error_ = Status(code_, (where.empty() ? "" : where + ": ") + what);
    return false;
  }

  // The member `key` of `object`, or null (an error when required).
  const json* Member(const json& object, const std::string& where, const char* key, bool required = true) {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required) Fail(where, std::string("missing field \"") + key + "\"");
      return nullptr;
    }
    return &*it;
  }

  bool String(const json& value, const std::string& where, std::string* out) {
    if (!value.is_string()) return Fail(where, "expected a string, got " + Describe(value));
    *out = value.get<std::string>();
    return true;
  }

  bool Int64(const json& value, const std::string& where, int64_t* out) {
    if (!value.is_number_integer()) return Fail(where, "expected an integer, got " + Describe(value));
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Fail(where, "integer " + Dump(value) + " is out of range");
    }
    *out = value.get<int64_t>();
    return true;
  }

  bool NonNegative(const json& value, const std::string& where, int64_t* out) {
    if (!Int64(value, where, out)) return false;
    if (*out < 0) return Fail(where, "expected a non-negative integer, got " + Dump(value));
    return true;
  }

  bool Array(const json& value, const std::string& where) {
    return value.is_array() || Fail(where, "expected an array, got " + Describe(value));
  }

  bool Object(const json& value, const std::string& where) {
    return value.is_object() || Fail(where, "expected an object, got " + Describe(value));
  }

  // The value's type and text, cut to 40 characters, for messages.
  static std::string Describe(const json& value) {
    std::string text = Dump(value);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(value.type_name()) + " " + text;
  }

  // Never throws: invalid UTF-8 is replaced rather than reported.
  static std::string Dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

  static bool IsIdentifier(const std::string& name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    for (char c : name) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      if (!ok) return false;
    }
    return true;
  }

 private:
  StatusCode code_;
  Status error_;
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_JSON_READER_H_
