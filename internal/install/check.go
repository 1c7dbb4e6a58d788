package install

import "slices"

// MissingInstructions lists the entries of Instructions(memoryDir) that
// OpenCode's global config in dir does not load, and the file holding its
// instructions ("" when none does), for doctor.
func MissingInstructions(dir, memoryDir string) (file string, missing []string, err error) {
	file, list, err := OpenCodeInstructions(dir)
	if err != nil {
		return "", nil, err
	}
	for _, want := range Instructions(memoryDir) {
		if !slices.Contains(list, want) {
			missing = append(missing, want)
		}
	}
	return file, missing, nil
}
