package config

import "reflect"

// Keys lists every key the loader accepts, in declaration order, derived
// from the yaml tags of [Config] — the same tags the loader walks. A
// mapping whose keys are chosen by the operator shows its placeholder
// (sources.<alias>.kind), an item of a list of mappings shows "[]"
// (catalogs[].name), and lists of values and maps of values are leaves.
func Keys() []string {
	var keys []string
	collectKeys(reflect.TypeFor[Config](), "", &keys)
	return keys
}

func collectKeys(t reflect.Type, prefix string, keys *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := yamlName(f)
		if name == "" {
			continue
		}
		key := childKey(prefix, name)
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			collectKeys(ft, key, keys)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			collectKeys(ft.Elem(), key+"[]", keys)
		case ft.Kind() == reflect.Map:
			key += ".<" + f.Tag.Get("key") + ">"
			if ft.Elem().Kind() == reflect.Struct {
				collectKeys(ft.Elem(), key, keys)
			} else {
				*keys = append(*keys, key)
			}
		default:
			*keys = append(*keys, key)
		}
	}
}
