#include "deploy/kernel_metadata.h"

#include <limits>
#include <set>

#include "deploy/json_reader.h"

namespace tunefarm::deploy {
namespace {

using json = JsonReader::json;

struct DTypeInfo {
  std::string_view name;
  size_t bytes;
  bool is_integer;
};

constexpr DTypeInfo kDTypes[] = {
    {"float16", 2, false}, {"bfloat16", 2, false}, {"float32", 4, false}, {"float64", 8, false},
    {"int8", 1, true},     {"int16", 2, true},     {"int32", 4, true},    {"int64", 8, true},
    {"uint8", 1, true},    {"uint16", 2, true},    {"uint32", 4, true},   {"uint64", 8, true},
    {"bool", 1, true},
};

const DTypeInfo* FindDType(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

// Validation stops at the first problem (JsonReader records it with its JSON path).
class Parser : public JsonReader {
 public:
  Parser() : JsonReader(StatusCode::kBadMetadata) {}

  bool Metadata(const json& root, KernelMetadata* out) {
    if (!root.is_object()) return Fail("", "expected a JSON object, got " + Describe(root));
    const json* format = Member(root, "", "format");
    int64_t format_value = 0;
    if (format == nullptr || !Int64(*format, "format", &format_value)) return false;
    if (format_value != kMetadataFormat) {
      return Fail("format", "this runtime reads metadata format " +
                                std::to_string(kMetadataFormat) + ", got " +
                                std::to_string(format_value));
    }
    out->format = static_cast<int32_t>(format_value);
    const json* target = Member(root, "", "target");
    if (target == nullptr || !String(*target, "target", &out->target)) return false;

    const json* entries = Member(root, "", "entries");
    if (entries == nullptr) return false;
    if (!entries->is_array()) return Fail("entries", "expected an array, got " + Describe(*entries));
    std::set<std::string> names;
    for (size_t i = 0; i < entries->size(); ++i) {
      const std::string where = "entries[" + std::to_string(i) + "]";
      EntryInfo entry;
      if (!Entry((*entries)[i], where, &entry)) return false;
      if (!names.insert(entry.name).second) {
        return Fail(where + ".name", "duplicate entry \"" + entry.name + "\"");
      }
      out->entries.push_back(std::move(entry));
    }
    for (size_t i = 0; i < out->entries.size(); ++i) {
      const std::vector<ArgInfo>& args = out->entries[i].args;
      for (size_t a = 0; a < args.size(); ++a) {
        if (args[a].prepared_by.empty()) continue;
        const std::string where =
            "entries[" + std::to_string(i) + "].args[" + std::to_string(a) + "].prepared_by";
        if (!PreparingEntry(*out, args[a], where)) return false;
      }
    }
    return true;
  }

 private:
  bool Entry(const json& value, const std::string& where, EntryInfo* out) {
    if (!value.is_object()) return Fail(where, "expected an object, got " + Describe(value));
    const json* name = Member(value, where, "name");
    if (name == nullptr || !String(*name, where + ".name", &out->name)) return false;
    // The name is looked up with dlsym, so it must be a plain C symbol.
    if (!IsIdentifier(out->name)) {
      return Fail(where + ".name", "\"" + out->name + "\" is not a C identifier");
    }
    const json* workspace = Member(value, where, "workspace_bytes");
    int64_t workspace_bytes = 0;
    if (workspace == nullptr ||
        !NonNegative(*workspace, where + ".workspace_bytes", &workspace_bytes)) {
      return false;
    }
    out->workspace_bytes = static_cast<uint64_t>(workspace_bytes);

    const json* args = Member(value, where, "args");
    if (args == nullptr) return false;
    if (!args->is_array()) return Fail(where + ".args", "expected an array, got " + Describe(*args));
    std::set<std::string> arg_names;
    bool seen_output = false;
    for (size_t i = 0; i < args->size(); ++i) {
      const std::string arg_where = where + ".args[" + std::to_string(i) + "]";
      ArgInfo arg;
      if (!Arg((*args)[i], arg_where, &arg)) return false;
      if (!arg_names.insert(arg.name).second) {
        return Fail(arg_where + ".name", "duplicate argument \"" + arg.name + "\"");
      }
      // The calling convention passes inputs first, then outputs.
      if (arg.role == ArgRole::kOut) {
        seen_output = true;
      } else if (seen_output) {
        return Fail(arg_where + ".role", std::string("\"") + ArgRoleName(arg.role) +
                                             "\" argument after an output; inputs come first");
      }
      out->args.push_back(std::move(arg));
    }
    const json* launches = Member(value, where, "launches", /*required=*/false);
    if (launches == nullptr) return true;
    if (!Array(*launches, where + ".launches")) return false;
    for (size_t i = 0; i < launches->size(); ++i) {
      LaunchInfo launch;
      if (!Launch((*launches)[i], where + ".launches[" + std::to_string(i) + "]", &launch)) return false;
      out->launches.push_back(std::move(launch));
    }
    return true;
  }

  bool Launch(const json& value, const std::string& where, LaunchInfo* out) {
    if (!Object(value, where)) return false;
    const json* kernel = Member(value, where, "kernel");
    if (kernel == nullptr || !String(*kernel, where + ".kernel", &out->kernel)) return false;
    if (!IsIdentifier(out->kernel)) return Fail(where + ".kernel", "\"" + out->kernel + "\" is not a C identifier");
    for (const auto& [key, dims] : {std::pair{"grid", out->grid}, std::pair{"block", out->block}}) {
      const json* shape = Member(value, where, key);
      const std::string shape_where = where + "." + key;
      if (shape == nullptr || !Array(*shape, shape_where)) return false;
      if (shape->size() != 3) return Fail(shape_where, "expected 3 extents, got " + std::to_string(shape->size()));
      for (size_t d = 0; d < 3; ++d) {
        if (!NonNegative((*shape)[d], shape_where + "[" + std::to_string(d) + "]", &dims[d])) return false;
        if (dims[d] == 0) return Fail(shape_where + "[" + std::to_string(d) + "]", "an extent of 0 launches nothing");
      }
    }
    const json* shared = Member(value, where, "shared_bytes");
    return shared != nullptr && NonNegative(*shared, where + ".shared_bytes", &out->shared_bytes);
  }

  bool Arg(const json& value, const std::string& where, ArgInfo* out) {
    if (!value.is_object()) return Fail(where, "expected an object, got " + Describe(value));
    const json* name = Member(value, where, "name");
    if (name == nullptr || !String(*name, where + ".name", &out->name)) return false;
    if (out->name.empty()) return Fail(where + ".name", "empty argument name");

    const json* dtype = Member(value, where, "dtype");
    if (dtype == nullptr || !String(*dtype, where + ".dtype", &out->dtype)) return false;
    const DTypeInfo* info = FindDType(out->dtype);
    if (info == nullptr) return Fail(where + ".dtype", "unknown dtype \"" + out->dtype + "\"");

    const json* shape = Member(value, where, "shape");
    if (shape == nullptr) return false;
    if (!shape->is_array()) return Fail(where + ".shape", "expected an array, got " + Describe(*shape));
    int64_t max_elements = std::numeric_limits<int64_t>::max() / static_cast<int64_t>(info->bytes);
    int64_t elements = 1;
    for (size_t i = 0; i < shape->size(); ++i) {
      const std::string dim_where = where + ".shape[" + std::to_string(i) + "]";
      int64_t extent = 0;
      if (!NonNegative((*shape)[i], dim_where, &extent)) return false;
      if (extent != 0 && elements > max_elements / extent) {
        return Fail(where + ".shape", "the argument's byte size overflows int64");
      }
      elements *= extent;
      out->shape.push_back(extent);
    }

    const json* role = Member(value, where, "role");
    std::string role_name;
    if (role == nullptr || !String(*role, where + ".role", &role_name)) return false;
    if (role_name == "in") {
      out->role = ArgRole::kIn;
    } else if (role_name == "out") {
      out->role = ArgRole::kOut;
    } else if (role_name == "param") {
      out->role = ArgRole::kParam;
    } else {
      return Fail(where + ".role", "expected \"in\", \"out\" or \"param\", got \"" + role_name + "\"");
    }

    const json* prepared_by = Member(value, where, "prepared_by", /*required=*/false);
    if (prepared_by != nullptr) {
      if (!String(*prepared_by, where + ".prepared_by", &out->prepared_by)) return false;
      if (out->role == ArgRole::kOut) return Fail(where + ".prepared_by", "an output cannot be prepared");
    }
    const json* range = Member(value, where, "range", /*required=*/false);
    if (range != nullptr) return Range(*range, where + ".range", *info, out);
    return true;
  }

  // The entry that prepares `arg` takes [source, arg]: an input and an output of arg's type.
  bool PreparingEntry(const KernelMetadata& metadata, const ArgInfo& arg, const std::string& where) {
    const EntryInfo* entry = metadata.FindEntry(arg.prepared_by);
    if (entry == nullptr) return Fail(where, "no entry \"" + arg.prepared_by + "\" in this library");
    const std::vector<ArgInfo>& its = entry->args;
    if (its.size() != 2 || its[0].role == ArgRole::kOut || its[1].role != ArgRole::kOut) {
      return Fail(where, "entry \"" + arg.prepared_by + "\" must take one input and one output");
    }
    if (!its[0].prepared_by.empty()) {
      return Fail(where, "entry \"" + arg.prepared_by + "\" takes a prepared argument itself");
    }
    if (its[1].dtype != arg.dtype || its[1].shape != arg.shape) {
      return Fail(where, "entry \"" + arg.prepared_by + "\" makes a tensor of another type or shape");
    }
    return true;
  }

  bool Range(const json& value, const std::string& where, const DTypeInfo& dtype, ArgInfo* out) {
    if (!dtype.is_integer) {
      return Fail(where, "a value range is only allowed on integer arguments, this one is " +
                             std::string(dtype.name));
    }
    if (!value.is_array() || value.size() != 2) {
      return Fail(where, "expected [lo, hi], got " + Describe(value));
    }
    ValueRange range;
    if (!Int64(value[0], where + "[0]", &range.lo) || !Int64(value[1], where + "[1]", &range.hi)) {
      return false;
    }
    if (range.lo > range.hi) {
      return Fail(where, "lo " + std::to_string(range.lo) + " is greater than hi " +
                             std::to_string(range.hi));
    }
    out->range = range;
    return true;
  }
};

}  // namespace

const char* ArgRoleName(ArgRole role) {
  switch (role) {
    case ArgRole::kIn: return "in";
    case ArgRole::kOut: return "out";
    case ArgRole::kParam: return "param";
  }
  return "?";
}

size_t DTypeBytes(std::string_view dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info == nullptr ? 0 : info->bytes;
}

bool IsIntegerDType(std::string_view dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info != nullptr && info->is_integer;
}

int64_t ArgInfo::NumElements() const {
  int64_t elements = 1;
  for (int64_t extent : shape) elements *= extent;
  return elements;
}

std::string ShapeText(const std::vector<int64_t>& shape, const char* separator) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? separator : "") + std::to_string(shape[i]);
  return text + "]";
}

const EntryInfo* KernelMetadata::FindEntry(std::string_view name) const {
  for (const EntryInfo& entry : entries) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

Result<KernelMetadata> ParseKernelMetadata(std::string_view text) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return Status(StatusCode::kBadMetadata, std::string("not valid JSON: ") + e.what());
  }
  Parser parser;
  KernelMetadata metadata;
  try {
    if (!parser.Metadata(root, &metadata)) return parser.error();
  } catch (const std::exception& e) {  // e.g. bad_alloc: nothing may escape the runtime's API
    return Status(StatusCode::kBadMetadata, std::string("cannot read metadata: ") + e.what());
  }
  return metadata;
}

}  // namespace tunefarm::deploy
