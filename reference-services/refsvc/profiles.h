// Named profiles: knob sets that reproduce what the seed papers measured.
#pragma once
#include <string>
#include <vector>

#include "reference-services/refsvc/knobs.h"

namespace stallscope::refsvc {

struct Profile {
    std::string name;
    std::string summary;
    Knobs client;
    Knobs server;
};

const std::vector<Profile>& all_profiles();
// nullptr when unknown.
const Profile* find_profile(const std::string& name);
std::string profile_names();  // "apache-soap, apache-soap-fixed, ..."

}  // namespace stallscope::refsvc
