// ParseModelPlan: the JSON record into structs, each field checked where it is read. The checks
// that relate fields to each other (calls against values) are in model_plan_check.cc.
#include "deploy/model_plan.h"

#include <limits>

#include "deploy/json_reader.h"

namespace tunefarm::deploy {

namespace {

using json = JsonReader::json;

std::string Index(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

class PlanParser : public JsonReader {
 public:
  PlanParser() : JsonReader(StatusCode::kBadPlan) {}

  bool Plan(const json& root, ModelPlan* out) {
    if (!Object(root, "")) return false;
    int64_t format = 0;
    if (!Integer(root, "", "format", &format)) return false;
    if (format != kModelPlanFormat) {
      return Fail("format", "this runtime reads plan format " + std::to_string(kModelPlanFormat) + ", got " +
                                std::to_string(format));
    }
    const json* target = Member(root, "", "target");
    if (target == nullptr || !String(*target, "target", &out->target)) return false;
    if (!Threads(root, out)) return false;
    int64_t arena = 0, params = 0;
    if (!Integer(root, "", "arena_bytes", &arena) || !Integer(root, "", "params_bytes", &params)) return false;
    out->arena_bytes = static_cast<uint64_t>(arena);
    out->params_bytes = static_cast<uint64_t>(params);

    const json* values = Member(root, "", "values");
    if (values == nullptr || !Array(*values, "values")) return false;
    for (size_t i = 0; i < values->size(); ++i) {
      PlanValue value;
      if (!Value((*values)[i], Index("values", i), *out, &value)) return false;
      out->values.push_back(std::move(value));
    }
    if (!ValueIds(root, "inputs", *out, &out->inputs) || !ValueIds(root, "outputs", *out, &out->outputs)) {
      return false;
    }
    const json* calls = Member(root, "", "calls");
    if (calls == nullptr || !Array(*calls, "calls")) return false;
    for (size_t i = 0; i < calls->size(); ++i) {
      PlanCall call;
      if (!Call((*calls)[i], Index("calls", i), *out, &call)) return false;
      out->calls.push_back(std::move(call));
    }
    return true;
  }

 private:
  // A required non-negative integer member.
  bool Integer(const json& object, const std::string& where, const char* key, int64_t* out) {
    const json* value = Member(object, where, key);
    return value != nullptr && NonNegative(*value, where.empty() ? key : where + "." + key, out);
  }

  bool Threads(const json& root, ModelPlan* out) {
    const json* threads = Member(root, "", "threads", /*required=*/false);
    if (threads == nullptr) return true;
    int64_t count = 0;
    if (!Int64(*threads, "threads", &count)) return false;
    if (count < 1 || count > std::numeric_limits<int32_t>::max()) {
      return Fail("threads", "expected a positive thread count, got " + std::to_string(count));
    }
    out->threads = static_cast<int32_t>(count);
    return true;
  }

  bool Value(const json& value, const std::string& where, const ModelPlan& plan, PlanValue* out) {
    if (!Object(value, where)) return false;
    const json* name = Member(value, where, "name");
    if (name == nullptr || !String(*name, where + ".name", &out->name)) return false;
    const std::string named = where + " (\"" + out->name + "\")";
    const json* dtype = Member(value, named, "dtype");
    if (dtype == nullptr || !String(*dtype, named + ".dtype", &out->dtype)) return false;
    const uint64_t element_bytes = DTypeBytes(out->dtype);
    if (element_bytes == 0) return Fail(named + ".dtype", "unknown dtype \"" + out->dtype + "\"");
    if (!Shape(value, named, element_bytes, out)) return false;

    const json* space = Member(value, named, "space");
    std::string space_name;
    if (space == nullptr || !String(*space, named + ".space", &space_name)) return false;
    if (space_name == "arena") {
      out->space = ValueSpace::kArena;
    } else if (space_name == "param") {
      out->space = ValueSpace::kParam;
    } else {
      return Fail(named + ".space", "expected \"arena\" or \"param\", got \"" + space_name + "\"");
    }
    int64_t offset = 0;
    if (!Integer(value, named, "offset", &offset)) return false;
    out->offset = static_cast<uint64_t>(offset);

    const bool arena = out->space == ValueSpace::kArena;
    const uint64_t limit = arena ? plan.arena_bytes : plan.params_bytes;
    if (out->offset > limit || out->bytes > limit - out->offset) {
      return Fail(named, "bytes [" + std::to_string(out->offset) + ", " + std::to_string(out->offset) + " + " +
                             std::to_string(out->bytes) + ") are outside the " + space_name + " space (" +
                             (arena ? "arena_bytes " : "params_bytes ") + std::to_string(limit) + ")");
    }
    return true;
  }

  bool Shape(const json& value, const std::string& where, uint64_t element_bytes, PlanValue* out) {
    const json* shape = Member(value, where, "shape");
    if (shape == nullptr || !Array(*shape, where + ".shape")) return false;
    const uint64_t max_bytes = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t bytes = element_bytes;
    for (size_t i = 0; i < shape->size(); ++i) {
      int64_t extent = 0;
      if (!NonNegative((*shape)[i], Index(where + ".shape", i), &extent)) return false;
      const auto e = static_cast<uint64_t>(extent);
      if (e != 0 && bytes > max_bytes / e) return Fail(where + ".shape", "the value's byte size overflows int64");
      bytes *= e;
      out->shape.push_back(extent);
    }
    out->bytes = bytes;
    return true;
  }

  bool ValueId(const json& value, const std::string& where, const ModelPlan& plan, int32_t* out) {
    int64_t id = 0;
    if (!Int64(value, where, &id)) return false;
    if (id < 0 || static_cast<uint64_t>(id) >= plan.values.size()) {
      return Fail(where, "value id " + std::to_string(id) + " is out of range (the plan has " +
                             std::to_string(plan.values.size()) + " values)");
    }
    *out = static_cast<int32_t>(id);
    return true;
  }

  // "inputs" / "outputs": value ids of arena values (they are written and read by the caller).
  bool ValueIds(const json& root, const char* key, const ModelPlan& plan, std::vector<int32_t>* out) {
    const json* ids = Member(root, "", key);
    if (ids == nullptr || !Array(*ids, key)) return false;
    for (size_t i = 0; i < ids->size(); ++i) {
      int32_t id = 0;
      if (!ValueId((*ids)[i], Index(key, i), plan, &id)) return false;
      if (plan.values[id].space != ValueSpace::kArena) {
        return Fail(Index(key, i), DescribeValue(plan, id) + " is a param; model " + key + " live in the arena");
      }
      out->push_back(id);
    }
    return true;
  }

  bool Call(const json& value, const std::string& where, const ModelPlan& plan, PlanCall* out) {
    if (!Object(value, where)) return false;
    const json* kernel = Member(value, where, "kernel");
    if (kernel == nullptr || !String(*kernel, where + ".kernel", &out->kernel)) return false;
    if (!IsIdentifier(out->kernel)) {
      return Fail(where + ".kernel", "\"" + out->kernel + "\" is not a C identifier");
    }
    const std::string named = where + " (kernel \"" + out->kernel + "\")";
    const json* args = Member(value, named, "args");
    if (args == nullptr || !Array(*args, named + ".args")) return false;
    for (size_t i = 0; i < args->size(); ++i) {
      int32_t id = 0;
      if (!ValueId((*args)[i], Index(named + ".args", i), plan, &id)) return false;
      out->args.push_back(id);
    }
    int64_t num_inputs = 0;
    if (!Integer(value, named, "num_inputs", &num_inputs)) return false;
    if (static_cast<uint64_t>(num_inputs) > out->args.size()) {
      return Fail(named + ".num_inputs", std::to_string(num_inputs) + " inputs but only " +
                                             std::to_string(out->args.size()) + " arguments");
    }
    out->num_inputs = static_cast<int32_t>(num_inputs);
    Informational(value, out);
    return true;
  }

  // group, ops, workload, schedule: kept when well-formed, never an error (the runtime does not
  // depend on them).
  static void Informational(const json& value, PlanCall* out) {
    auto text = [&](const char* key, std::string* field) {
      auto it = value.find(key);
      if (it != value.end() && it->is_string()) *field = it->get<std::string>();
    };
    text("group", &out->group);
    text("workload", &out->workload);
    text("schedule", &out->schedule);
    auto ops = value.find("ops");
    if (ops == value.end() || !ops->is_array()) return;
    for (const json& op : *ops) {
      if (op.is_string()) out->ops.push_back(op.get<std::string>());
    }
  }
};

}  // namespace

const char* ValueSpaceName(ValueSpace space) { return space == ValueSpace::kArena ? "arena" : "param"; }

std::string DescribeValue(const ModelPlan& plan, int32_t value) {
  std::string text = "value " + std::to_string(value);
  if (value >= 0 && static_cast<size_t>(value) < plan.values.size()) text += " \"" + plan.values[value].name + "\"";
  return text;
}

std::string DescribeCall(const ModelPlan& plan, size_t call) {
  std::string text = "calls[" + std::to_string(call) + "]";
  if (call < plan.calls.size()) text += " (kernel \"" + plan.calls[call].kernel + "\")";
  return text;
}

Result<ModelPlan> ParseModelPlan(std::string_view text) {
  try {
    json root;
    try {
      root = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
      return Status(StatusCode::kBadPlan, std::string("the plan is not valid JSON: ") + e.what());
    }
    PlanParser parser;
    ModelPlan plan;
    if (!parser.Plan(root, &plan)) return parser.error();
    if (Status s = CheckPlanCalls(plan); !s.ok()) return s;
    return plan;
  } catch (const std::exception& e) {  // e.g. bad_alloc: nothing may escape the runtime's API
    return Status(StatusCode::kBadPlan, std::string("cannot read the plan: ") + e.what());
  }
}

}  // namespace tunefarm::deploy
